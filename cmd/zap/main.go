// Command zap: see the package documentation of internal/zapcli, or run
// zap --help.
package main

import (
	"context"
	"os"

	"github.com/zap-go/zap/internal/zapcli"
)

func main() {
	os.Exit(zapcli.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
