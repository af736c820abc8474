package execute

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
)

// CwdStatus is the status a command's script exits with when it can't enter
// its working directory, before anything of the command runs.
const CwdStatus = 125

// Script returns the text an operator's command is handed to its shell as,
// on stdin: it enters cwd (when set; exit 125 when it can't, with nothing
// run), exports each env variable (sorted by name, each value single-quoted,
// a quote inside closing the quote, escaped, and reopening it), then runs
// the command's text on lines of its own, in a group that reads /dev/null,
// so nothing the command runs reads the rest of the script as its input. A
// check runs in the same frame (see internal/detect), so a check and its run
// see the same directory and environment.
//
//	cd -- '/srv/app' || exit 125
//	export NAME='value'
//	{
//	make install
//	} </dev/null
func Script(cwd string, env map[string]string, run string) string {
	var b strings.Builder
	if cwd != "" {
		b.WriteString("cd -- " + vocab.Quote(cwd) + " || exit " + strconv.Itoa(CwdStatus) + "\n")
	}
	names := slices.Sorted(maps.Keys(env))
	for _, n := range names {
		b.WriteString("export " + n + "=" + vocab.Quote(env[n]) + "\n")
	}
	b.WriteString("{\n")
	b.WriteString(run)
	if !strings.HasSuffix(run, "\n") {
		b.WriteString("\n")
	}
	b.WriteString("} </dev/null\n")
	return b.String()
}

// RunScript is the script of a command that a step of Zap's own runs
// rather than the runner (a build's run, inside its source directory): run
// and env resolved through lookup, refused as a command step's are (a value
// a command can't take, a reference the plan doesn't record, naming the
// field and never the value), in Script's frame with no cwd.
func RunScript(id string, run declaration.Text, env map[string]declaration.Text, lookup Lookup) (string, error) {
	r := resolver{id: id, lookup: lookup}
	text, err := r.command("run", run)
	if err != nil {
		return "", err
	}
	vals := make(map[string]string, len(env))
	for name, t := range env {
		if vals[name], err = r.env("env."+name, t); err != nil {
			return "", err
		}
	}
	return Script("", vals, text), nil
}
