// Command zap-plan: see the package documentation of internal/zapplan, or run
// zap-plan --help.
package main

import (
	"context"
	"os"

	"github.com/zap-go/zap/internal/zapplan"
)

func main() {
	os.Exit(zapplan.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
