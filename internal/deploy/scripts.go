// Package deploy is what zap-deploy does: read the checkout and the target
// into a deploy plan (Make), show it (Text), and run it (Run). The plan's
// document is pkg/deployplan; docs/deploy.md describes the design.
package deploy

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/deployplan"
)

// The constant scripts. Release's body is printed whole in every plan, after
// the lines ReleaseScript writes; Install and Rollback are hashed with the
// plan (deployplan.Hash) but not printed; Read runs when the plan is made.
var (
	//go:embed scripts/release.sh
	releaseBody string
	//go:embed scripts/install.sh
	Install string
	//go:embed scripts/rollback.sh
	Rollback string
	//go:embed scripts/read.sh
	readScript string
)

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
	b.WriteString(releaseBody)
	return b.String()
}
