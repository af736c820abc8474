// Command zap-deploy: see the package documentation of internal/zapdeploy, or run
// zap-deploy --help.
package main

import (
	"context"
	"os"

	"github.com/zap-go/zap/internal/zapdeploy"
)

func main() {
	os.Exit(zapdeploy.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
