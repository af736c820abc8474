package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/sandbox"
	"github.com/zap-go/zap/internal/scripttest"
)

func TestMain(m *testing.M) { testscript.Main(m, scripttest.Commands()) }

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
	testscript.Run(t, p)
}
