package zapcli

import (
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/pass"
)

// The values a planned command or a template can't take (pass.BadValues,
// pass.BadTemplates), and the fetched URLs whose references resolve to one
// Zap doesn't fetch (pass.BadURLs): a preview warns of commands and URLs,
// a wetrun refuses all three.

// warnBadValues prints a warning for each value a planned command can't
// carry (plan and a dry apply: the wetrun refuses them).
func (a *app) warnBadValues(bad []pass.BadValue) {
	for _, b := range bad {
		fmt.Fprintf(a.stderr, "warning: %s\n", b)
	}
	if len(bad) > 0 {
		fmt.Fprintln(a.stderr, "hint: a wetrun refuses this plan; hand the command the value through env, which is quoted after it resolves")
	}
}

// refuseBadValues is the wetrun's check of every planned command, before
// anything runs.
func refuseBadValues(bad []pass.BadValue) error {
	if len(bad) == 0 {
		return nil
	}
	lines := make([]string, len(bad))
	for i, b := range bad {
		lines[i] = b.String()
	}
	return exit.Fail(2, strings.Join(lines, "\n")+"\nnothing was run",
		"hand the command the value through env, which is quoted after it resolves, or change the value")
}

// warnBadURLs prints a warning for each fetched URL whose references
// resolve to one Zap doesn't fetch (plan and a dry apply: the wetrun
// refuses them).
func (a *app) warnBadURLs(bad []string) {
	for _, b := range bad {
		fmt.Fprintf(a.stderr, "warning: %s\n", b)
	}
	if len(bad) > 0 {
		fmt.Fprintln(a.stderr, "hint: a wetrun refuses this plan; "+badURLHint)
	}
}

const badURLHint = "change the value the reference resolves to: https:// (http:// only to a loopback host), with no user:password@ (a credential goes in auth)"

// refuseBadURLs is the wetrun's check of every fetched URL's resolved
// value, before anything runs.
func refuseBadURLs(bad []string) error {
	if len(bad) == 0 {
		return nil
	}
	return exit.Fail(2, strings.Join(bad, "\n")+"\nnothing was run", badURLHint)
}

// refuseBadTemplates is the wetrun's check of every template's values,
// before anything runs.
func refuseBadTemplates(bad []string) error {
	if len(bad) == 0 {
		return nil
	}
	return exit.Fail(2, strings.Join(bad, "\n")+"\nnothing was run",
		"change the value the reference resolves to: a template takes no line break, NUL or reference delimiter, and a variable with a kind only a value of that kind")
}
