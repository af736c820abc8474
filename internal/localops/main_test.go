package localops

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs the tests in a temporary directory outside /tmp: below a
// directory every account may write (as /tmp is) a put keeps nothing, which
// the scenarios that keep a mode or an owner must not run into.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "stall" {
		os.Exit(helperStall(os.Args[len(os.Args)-3], os.Args[len(os.Args)-2], os.Args[len(os.Args)-1]))
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	base, err := os.UserCacheDir()
	if err == nil {
		err = os.MkdirAll(base, 0o700)
	}
	var dir string
	if err == nil {
		dir, err = os.MkdirTemp(base, "zap-localops-test-")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "no private temporary directory: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("TMPDIR", dir)
	return m.Run()
}
