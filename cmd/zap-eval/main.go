// Command zap-eval: see the package documentation of internal/zapeval, or run
// zap-eval --help.
package main

import (
	"context"
	"os"

	"github.com/zap-go/zap/internal/zapeval"
)

func main() {
	os.Exit(zapeval.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
