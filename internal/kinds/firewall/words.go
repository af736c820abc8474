package firewall

import (
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/pkg/plan"
)

// ufwForms are the commands the ufw operations run, as their scripts write
// them (a test holds each to its script's text): "$1" and "$2" stand for
// the operation's first and second arguments, "$rule" for its first; args
// is how many it takes.
var ufwForms = map[plan.OpName]struct {
	cmd  string
	args int
}{
	OpUfwAllow:   {`ufw allow "$rule"`, 1},
	OpUfwDefault: {`ufw default "$2" "$1"`, 2},
	OpUfwEnable:  {`ufw --force enable`, 0},
}

// word: a ufw operation reads as the command it runs with its arguments
// in place, each a shell word (opcmd.Quote), under an explicit sudo as
// root, else as the account the caller names; one with a path or the
// wrong arguments, and the nftables operation, have no words of their own.
//
//	firewall-ufw-default incoming deny   sudo ufw default deny incoming
func word(op *plan.Op) (opcmd.Words, bool) {
	f, ok := ufwForms[op.Name]
	if !ok || !op.Path.IsZero() || len(op.Args) != f.args {
		return opcmd.Words{}, false
	}
	var pairs []string
	for i, a := range op.Args {
		pairs = append(pairs, `"$`+strconv.Itoa(i+1)+`"`, opcmd.Quote(a))
	}
	if f.args > 0 {
		pairs = append(pairs, `"$rule"`, opcmd.Quote(op.Args[0]))
	}
	text := strings.NewReplacer(pairs...).Replace(f.cmd)
	if op.Privilege == plan.Root {
		return opcmd.Words{Text: "sudo " + text}, true
	}
	return opcmd.Words{Text: text, As: true}, true
}
