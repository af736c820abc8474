// Command zap-detect: see the package documentation of internal/zapdetect, or run
// zap-detect --help.
package main

import (
	"context"
	"os"

	"github.com/zap-go/zap/internal/zapdetect"
)

func main() {
	os.Exit(zapdetect.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
