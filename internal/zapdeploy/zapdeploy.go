// Package zapdeploy is zap-deploy, the stage that ships an app as a versioned
// release. It is not built yet: every invocation says so and exits 2.
//
// Usage:
//
//	zap-deploy [--help]
package zapdeploy

import (
	"context"
	"fmt"
	"io"
)

// Main runs zap-deploy with args and returns its exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			fmt.Fprintln(stdout, "usage: zap-deploy\n\nzap-deploy ships an app to a remote target as a versioned release.\nIt is not built yet.")
			return 0
		}
	}
	fmt.Fprintln(stderr, "zap-deploy: not built yet")
	return 2
}
