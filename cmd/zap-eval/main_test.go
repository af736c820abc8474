package main

import (
	"os/user"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/sandbox"
	"github.com/zap-go/zap/internal/scripttest"
)

func TestMain(m *testing.M) { scripttest.Main(m) }

// TestScripts runs the scripts with one more condition: [landlock] is true
// when the kernel enforces Landlock, which the sandbox scripts need.
func TestScripts(t *testing.T) {
	p := scripttest.Params("testdata/script")
	shared := p.Condition
	p.Condition = func(cond string) (bool, error) {
		if cond == "landlock" {
			return sandbox.ABI() >= sandbox.MinABI, nil
		}
		return shared(cond)
	}
	// accountenv sets ZAPTEST_UID and ZAPTEST_GID to the ids of the account
	// runas uses, for the scripts that play sudo (sandbox_eval_not_root).
	p.Cmds["accountenv"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 0 {
			ts.Fatalf("usage: accountenv")
		}
		u, err := user.Lookup(scripttest.TestAccount)
		ts.Check(err)
		ts.Setenv("ZAPTEST_UID", u.Uid)
		ts.Setenv("ZAPTEST_GID", u.Gid)
	}
	testscript.Run(t, p)
}
