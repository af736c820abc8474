package zapcli

import (
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/pass"
)

// The values a planned command or a template can't take (pass.BadValues,
// pass.BadTemplates): a preview warns of them, a wetrun refuses them.

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
	return fail(2, strings.Join(lines, "\n")+"\nnothing was run",
		"hand the command the value through env, which is quoted after it resolves, or change the value")
}

// refuseBadTemplates is the wetrun's check of every template's values,
// before anything runs.
func refuseBadTemplates(bad []string) error {
	if len(bad) == 0 {
		return nil
	}
	return fail(2, strings.Join(bad, "\n")+"\nnothing was run",
		"change the value the reference resolves to: a template takes no line break, NUL or reference delimiter, and a variable with a kind only a value of that kind")
}
