package deploy

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoEngineOfItsOwn holds internal/deploy to the one engine: it reaches
// the target only through execute.Host (zap-deploy hands it sshhost's Exec),
// so nothing it builds on, directly or not, is an SSH client; and it asks
// no question of its own (the front end's review.AskHash asks zap apply's
// and zap deploy's), so it builds on no terminal reader. go list -deps
// names every package it builds on.
func TestNoEngineOfItsOwn(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipped: the go tool isn't on PATH, and go list names what internal/deploy builds on")
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/zap-go/zap/internal/deploy").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !contains(deps, "github.com/zap-go/zap/internal/execute") {
		t.Fatalf("go list -deps named %d packages, without internal/execute: %q", len(deps), deps)
	}
	for _, banned := range []struct{ pkg, why string }{
		{"github.com/zap-go/zap/internal/sshhost", "an SSH runner: the target is reached through execute.Host"},
		{"golang.org/x/crypto/ssh", "an SSH client: the target is reached through execute.Host"},
		{"github.com/zap-go/zap/internal/review", "the review question, which the front end asks"},
		{"golang.org/x/term", "a terminal reader: the question is the front end's"},
	} {
		if contains(deps, banned.pkg) {
			t.Errorf("internal/deploy builds on %s, %s", banned.pkg, banned.why)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
