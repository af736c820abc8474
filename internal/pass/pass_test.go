package pass

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// canonical is doc in canonical form, as a stage writes it.
func canonical(t *testing.T, doc string) []byte {
	t.Helper()
	b, err := canon.Transform([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const remoteDecl = `{"format":"zap.declaration/1","mask":["SECRET_HOST"],
"target":{"host":{"$env":"SECRET_HOST"},"user":{"$env":"SSH_USER"}},
"resources":[{"id":"d","type":"directory","path":"/srv/d"}]}`

func TestConnectionAndUnbindableRender(t *testing.T) {
	d, err := declaration.Read(canonical(t, remoteDecl))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SECRET_HOST": "db7.internal.example", "SSH_USER": "deploy"}
	res := resolve.Resolve(d, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	c := connectionOf(d, res, false)
	if !c.Unbindable() || !c.Unrecorded() || strings.Join(c.Masked, ",") != "SECRET_HOST" || len(c.empty) != 0 {
		t.Fatalf("connection %+v", c)
	}
	var b bytes.Buffer
	render.Plan(&b, &plan.Plan{Hash: "abc123"}, render.PlanOptions{Mode: render.ModePlan, Unbindable: c.Masked, Unrecorded: c.MaskedHost})
	got := b.String()
	for _, w := range []string{"UNBINDABLE — the target's host or connecting user goes through the secret reference SECRET_HOST", "UNRECORDED — "} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
	if strings.Contains(got, "plan_hash: abc123") {
		t.Errorf("an unbindable plan shows its hash:\n%s", got)
	}
}

const literalRemoteDecl = `{"format":"zap.declaration/1","target":{"host":"203.0.113.7","user":"deploy"},"resources":[{"id":"d","path":"/srv/d","type":"directory"}]}`

// A report that isn't private, which zap refuses before it would have run
// zap-detect, keeps the early zap-detect from reading the declaration at
// all (it is started with its input held back while zap reads the report,
// then stopped), so nothing connects; with the report made private again,
// it starts, reads the declaration, and its answer is taken.
// (internal/zapcli's TestEarlyDetectStopped holds the command to the
// refusal.)
func TestEarlyDetectNotStartedOnRefusedReport(t *testing.T) {
	root := t.TempDir()
	home, bin := filepath.Join(root, "home"), filepath.Join(root, "bin")
	for _, d := range []string{home, bin} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// A zap-detect that keeps what it reads and answers nothing.
	read := filepath.Join(root, "read")
	if err := os.WriteFile(filepath.Join(bin, "zap-detect"), []byte("#!/bin/sh\nexec cat >>'"+read+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(root, "zap.ts")
	if err := os.WriteFile(config, []byte("export default (zap) => {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	env := Env{
		Getenv:    getenv,
		LookupEnv: func(string) (string, bool) { return "", false },
		Environ:   []string{"PATH=/usr/bin:/bin"},
		Stderr:    &bytes.Buffer{},
		Now:       time.Now,
		StageDir:  bin,
	}
	s, err := Open(env, config, true)
	if err != nil {
		t.Fatal(err)
	}
	decl := append(canonical(t, literalRemoteDecl), '\n')
	saveReport(t, s, decl)
	reports, _ := filepath.Glob(filepath.Join(home, ".zap", "reports", "*"))
	if len(reports) != 1 {
		t.Fatalf("reports: %v", reports)
	}
	if err := os.Chmod(reports[0], 0o666); err != nil {
		t.Fatal(err)
	}

	s.earlyWanted = true
	s.startEarlyDetect(context.Background(), decl)
	if s.early != nil {
		s.stopEarlyDetect()
		t.Fatal("a zap-detect started early on a report zap refuses")
	}
	if got, err := os.ReadFile(read); len(got) != 0 || (err != nil && !errors.Is(err, fs.ErrNotExist)) {
		t.Fatalf("the zap-detect stopped on a report zap refuses read %d bytes (%v)", len(got), err)
	}
	if err := os.Chmod(reports[0], 0o600); err != nil {
		t.Fatal(err)
	}
	s.startEarlyDetect(context.Background(), decl)
	if s.early == nil {
		t.Fatal("no zap-detect started early on a report zap takes")
	}
	// Run as zap would run it then, it is the early one's answer taken.
	s.Stages.UseGC(getenv, func(string) bool { return false })
	early := s.early
	if _, err := s.runDetect(context.Background(), decl, s.detectArgsFor(mayTrack(decl))); err != nil {
		t.Fatal(err)
	}
	if s.early != nil || early == nil {
		t.Fatal("the early zap-detect wasn't taken")
	}
	if got, err := os.ReadFile(read); err != nil || !bytes.Equal(got, decl) {
		t.Fatalf("the early zap-detect read %q (%v), not the declaration", got, err)
	}
}

// saveReport records a pass over decl, which read its one resource
// converged, as s's last run on its host.
func saveReport(t *testing.T, s *Session, decl []byte) {
	t.Helper()
	d, err := declaration.Read(decl)
	if err != nil {
		t.Fatal(err)
	}
	res := resolve.Resolve(d, s.env.LookupEnv)
	o := &observation.Observations{
		Format:      observation.Format,
		Declaration: *d,
		Context:     observation.Context{Target: "203.0.113.7", User: "deploy", Home: "/home/deploy"},
		Batches:     []observation.Batch{},
		Resources:   []observation.Resource{{ID: "d", Verdict: observation.Converged}},
	}
	r, err := state.NewReport(state.Pass{Command: state.CmdPlan, Time: time.Now(), Obs: o, Hasher: resolve.NewHasher(res)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Store.Save(s.Abs, HostKey(d, res), r); err != nil {
		t.Fatal(err)
	}
}
