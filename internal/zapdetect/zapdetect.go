// Package zapdetect is a stage of Zap (work in progress).
package zapdetect

import (
	"context"
	"fmt"
	"io"
)

// Main runs the command with args and returns its exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "not built yet")
	return 2
}
