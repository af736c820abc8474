// Package ops holds the constant scripts of Zap's own operations (the = steps
// of a plan). Each is embedded in the binary, run by a POSIX shell that reads
// it from stdin, and parameterised only by its arguments, so its text, the
// command it is handed to and its arguments are what plan_hash covers.
//
// On a local target zap-exec performs the same operations natively in Go and
// falls back to the script under sudo only where it is denied; over SSH the
// script is what runs.
package ops

import (
	"embed"

	"github.com/zap-go/zap/pkg/plan"
)

//go:embed scripts/*.sh
var scripts embed.FS

// Invocation is the command every operation script is handed to. The script
// arrives on its stdin; its arguments follow the --.
const Invocation = "sh -s --"

// Script returns the text of the named operation's script.
func Script(name plan.OpName) (plan.Script, bool) {
	b, err := scripts.ReadFile("scripts/" + string(name) + ".sh")
	if err != nil {
		return plan.Script{}, false
	}
	return plan.Script{Text: string(b), Invocation: Invocation}, true
}
