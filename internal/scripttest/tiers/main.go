// Command tiers prints, one line per test tier, whether this machine runs it
// and, when it doesn't, why. make test runs it after the tests.
package main

import (
	"fmt"

	"github.com/zap-go/zap/internal/scripttest"
)

func main() {
	for _, t := range scripttest.Tiers() {
		state := "runs"
		if !t.Runs {
			state = "skipped"
		}
		if t.Why != "" {
			fmt.Printf("tier: %-44s %s (%s)\n", t.Name, state, t.Why)
		} else {
			fmt.Printf("tier: %-44s %s\n", t.Name, state)
		}
	}
}
