package declaration

import (
	"fmt"
	"strings"
)

// Describe says what a verify assertion asks for, in the words a plan's #
// line and a drift's desired value use: "path_exists /srv/token (file,
// mode 600, owner app, not empty)", "command test -s /srv/token", `command
// curl -fs https://localhost/ (stdout contains "ok")`. A command reads as
// its first line as written (a reference as {env:NAME}), with " …" when
// more lines follow.
func (a Assertion) Describe() string {
	switch a.Type {
	case AssertPathExists:
		var w []string
		if a.FileType != "" {
			w = append(w, a.FileType)
		}
		if a.Mode != "" {
			w = append(w, "mode "+a.Mode)
		}
		if a.Owner != "" {
			w = append(w, "owner "+a.Owner)
		}
		if a.NotEmpty != nil && *a.NotEmpty {
			w = append(w, "not empty")
		}
		if len(w) == 0 {
			return "path_exists " + a.Path
		}
		return "path_exists " + a.Path + " (" + strings.Join(w, ", ") + ")"
	case AssertCommand:
		run := ""
		if a.Run != nil {
			run = a.Run.String()
		}
		run = strings.TrimRight(run, "\n")
		if i := strings.IndexByte(run, '\n'); i >= 0 {
			run = run[:i] + " …"
		}
		if a.Expect != nil {
			return fmt.Sprintf("command %s (stdout contains %q)", run, *a.Expect)
		}
		return "command " + run
	}
	return string(a.Type)
}
