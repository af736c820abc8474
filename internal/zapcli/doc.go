package zapcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/refdoc"
)

// completionArgs are the words a command's argument is chosen from where
// its usage can't spell them (completion.go): zap doc's names.
var completionArgs = map[string]func() []string{"doc": refdoc.Names}

// docFormat is zap doc --json's document.
const docFormat = "zap.doc/1"

// docCommand is zap doc [KIND|target|deploy].
func (a *app) docCommand(f *flagSets) *ffcli.Command {
	fs := f.plain("zap doc")
	asJSON := fs.Bool("json", false, "print a JSON document (zap.doc/1) for tools: the list, or the page's parts")
	return &ffcli.Command{
		Name:       "doc",
		ShortUsage: "zap doc [--json] [NAME]",
		ShortHelp:  "the reference: each kind's fields, an example, what detection reads and what apply runs",
		LongHelp: `With no NAME, lists the resource kinds, the target and the deploy
block, one line each. With one, prints its page: every field a config
writes (its type, whether it is required, its default and its rule), a
whole example config, what detection reads, and the steps an apply runs,
with their sudo. NAME is a kind's type or its builder's name (file,
zap.pkg), target or deploy.

The pages are made from the schema the evaluator reads a config by and
from each kind's own words, so they can't disagree with what the config's
checks accept; docs/kinds/ holds the same text. On a terminal the page is
shown through $PAGER (else less -R, when there is one); in a pipe it is
printed plain.

Exit status: 0 printed; 2 no such name (the closest one is named).`,
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 1 {
				return exit.Fail(2, fmt.Sprintf("zap doc takes one name at most, not %d arguments", len(args)), "zap doc lists the names")
			}
			if len(args) == 0 {
				if *asJSON {
					return a.docJSON(map[string]any{"format": docFormat, "pages": docIndex()})
				}
				return a.page(refdoc.Index())
			}
			p, err := refdoc.Lookup(args[0])
			if err != nil {
				return docNotFound(err)
			}
			if *asJSON {
				return a.docJSON(map[string]any{"format": docFormat, "page": p})
			}
			return a.page(p.Text())
		},
	}
}

// docEntry is one line of zap doc --json's list.
type docEntry struct {
	Name    string `json:"name"`
	What    string `json:"what"`
	Call    string `json:"call"`
	Summary string `json:"summary"`
}

func docIndex() []docEntry {
	var out []docEntry
	for _, p := range refdoc.Pages() {
		out = append(out, docEntry{Name: p.Name, What: p.What, Call: p.Call, Summary: p.Summary})
	}
	return out
}

// docNotFound is zap doc's usage error for a name with no page.
func docNotFound(err error) error {
	var u *refdoc.UnknownError
	if !errors.As(err, &u) {
		return exit.Failf(1, "zap doc: %w", err)
	}
	msg := fmt.Sprintf("zap doc: no kind, target or deploy block is called %s", escape.Line(u.Name))
	if u.Suggest != "" {
		return exit.Fail(2, msg, fmt.Sprintf("did you mean zap doc %s?", u.Suggest))
	}
	return exit.Fail(2, msg, "zap doc lists the kinds: "+strings.Join(refdoc.Names(), ", "))
}

// docJSON writes v as zap doc's JSON, indented for a reader.
func (a *app) docJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return exit.Failf(1, "zap doc: %w", err)
	}
	_, err = a.stdout.Write(append(b, '\n'))
	return err
}

// page prints text: through the pager when stdout is a terminal, plain
// otherwise, or when no pager can be started.
func (a *app) page(text string) error {
	out, ok := a.rawStdout.(*os.File)
	if !ok || !isTerminal(out) {
		_, err := io.WriteString(a.stdout, text)
		return err
	}
	if pager := a.pagerCommand(); pager != nil {
		pager.Stdin = strings.NewReader(text)
		pager.Stdout, pager.Stderr = out, a.rawStderr
		if err := pager.Run(); err == nil {
			return nil
		}
		// A pager that didn't run (not found, killed) leaves the text
		// unshown: print it.
	}
	_, err := io.WriteString(a.stdout, text)
	return err
}

// pagerCommand is $PAGER run by sh (it may hold flags), else less -R when
// it is on PATH, else nil. PAGER=cat, or set empty, pages nothing.
func (a *app) pagerCommand() *exec.Cmd {
	if p, set := a.lookupEnv("PAGER"); set {
		if strings.TrimSpace(p) == "" || strings.TrimSpace(p) == "cat" {
			return nil
		}
		return exec.Command("/bin/sh", "-c", p)
	}
	if less, err := exec.LookPath("less"); err == nil {
		cmd := exec.Command(less, "-R")
		if _, set := a.lookupEnv("LESS"); !set {
			// less quits when the page fits the screen, as git's pager
			// does.
			cmd.Env = append(os.Environ(), "LESS=FRX")
		}
		return cmd
	}
	return nil
}
