// Command tiers prints, one line per test tier, whether this machine runs it
// and, when it doesn't, why (make test's report prints the same lines).
package main

import (
	"os"

	"github.com/zap-go/zap/internal/scripttest"
)

func main() { scripttest.WriteTiers(os.Stdout) }
