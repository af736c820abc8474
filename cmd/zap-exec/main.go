// Command zap-exec: see the package documentation of internal/zapexec, or run
// zap-exec --help.
package main

import (
	"context"
	"os"

	"github.com/zap-go/zap/internal/zapexec"
)

func main() {
	os.Exit(zapexec.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
