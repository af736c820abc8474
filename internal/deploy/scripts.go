// Package deploy is what zap-deploy does: read the checkout and the target
// into a deploy plan (Make), show it (Text), and run it (Run). The plan's
// document is pkg/deployplan; docs/deploy-design.md describes the design.
package deploy

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/testhook"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/deployplan"
)

// The constant scripts. Release's body ends the plan's release script, after
// the lines ReleaseScript writes, so the plan and its hash hold it; a
// preview names it by its digest and prints it whole with --scripts (Text).
// Install, Rollback and Gate are hashed with the plan (deployplan.Hash,
// Hashed), named by digest and printed with --scripts alone; Read and
// needs.sh run when the plan is made.
var (
	//go:embed scripts/release.sh
	releaseBody string
	//go:embed scripts/install.sh
	installBody string
	// Install is the upload's script: install.sh with the reader of its
	// framed arguments (internal/ops's stdin part) where it says
	// `#@include stdin`.
	Install = strings.Replace(installBody, "#@include stdin\n", ops.Part("stdin")+"\n", 1)
	//go:embed scripts/rollback.sh
	Rollback string
	//go:embed scripts/gate.sh
	Gate string
	//go:embed scripts/read.sh
	readScript string
	//go:embed scripts/needs.sh
	needsScript string
)

// ScriptDigest names one of Zap's constant scripts in a preview:
// "sha256:" and the hex SHA-256 of its text.
func ScriptDigest(script string) string {
	sum := sha256.Sum256([]byte(script))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Hashed are the scripts a plan runs but doesn't print, in the order
// deployplan.Hash takes them: the archive's install, the rollback's swap,
// the record of the gate's verdict.
func Hashed() []string { return []string{Install, Rollback, Gate} }

// ReleaseScript writes the remote release script of a deploy: its settings
// as shell assignments, every value single-quoted, the prepare commands
// as a function, each in a shell of its own (sh -ec), then the constant
// body. The same inputs give the same text.
func ReleaseScript(path, user, version string, live deployplan.Live, keep int, shared, prepare []string, operator string) string {
	var b strings.Builder
	set := func(name, value string) { fmt.Fprintf(&b, "%s=%s\n", name, vocab.Quote(value)) }
	b.WriteString("#!/bin/sh\n# zap deploy: the release script\n")
	set("path", path)
	set("user", user)
	set("version", version)
	set("live_state", live.State)
	set("live", live.Release)
	set("keep", strconv.Itoa(keep))
	set("shared", strings.Join(shared, " "))
	op, _ := json.Marshal(operator)
	set("operator", string(op))
	b.WriteString("prepare() {\n")
	for _, p := range prepare {
		fmt.Fprintf(&b, "\tsh -ec %s || return\n", vocab.Quote(p))
	}
	b.WriteString("\t:\n}\n")
	body := releaseBody
	if point := os.Getenv(KillVar); point != "" && testhook.On() {
		body = withKill(body, point)
	}
	b.WriteString(body)
	return b.String()
}

// KillVar names the test-only variable that, in a test build alone
// (internal/testhook), has the release script kill itself with SIGKILL at
// a point of its work, so a test can show what the next deploy recovers
// from a script killed there (docs/deploy-design.md, Testing). The line is part
// of the plan's release script, so the plan shows it and its hash covers it.
const KillVar = "ZAP_TEST_DEPLOY_KILL"

// killPoints are the points KillVar names, each the line of the release
// script's body the kill goes before: "aside", inside the place step after
// an existing release of the version was moved aside and before the
// staging directory is renamed in; "placed", after the place step and
// before the swap.
var killPoints = map[string]string{
	"aside":  "mv -T -- releases/.zap-stage \"releases/$version\"\n",
	"placed": "rm -f -- .zap-current\n",
}

// withKill is body with the test kill before point's line; an unknown
// point, or one whose line the body lacks, kills at the start instead, so
// a test naming it fails rather than passes unkilled.
func withKill(body, point string) string {
	line := "kill -9 $$ # " + KillVar + "=" + vocab.Quote(point) + ": a test build's kill\n"
	anchor, ok := killPoints[point]
	i := strings.Index(body, anchor)
	if !ok || i < 0 || strings.Count(body, anchor) != 1 {
		return line + body
	}
	return body[:i] + line + body[i:]
}
