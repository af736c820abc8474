package ops

import (
	"os/exec"
	"strings"
	"testing"
)

// TestInputArguments checks that the arguments Input puts on stdin reach a
// script under dash, bash and BusyBox after the argv's, each whole: quotes,
// line breaks, backslashes, $ and ` that a shell would expand, a leading -,
// bytes that aren't UTF-8, and an empty one; and that none of them is on the
// shell's argv.
func TestInputArguments(t *testing.T) {
	hidden := []string{"it's", "two\nlines", `back\slash`, "$(touch x) `id` $HOME", "-n", "\xff\xfe", "", "'"}
	script := `for a; do printf '%s\000' "$a"; done` + "\n" + `printf 'argv\000'; cat /proc/$$/cmdline` + "\n"
	for _, sh := range svcShells(t) {
		cmd := exec.Command(sh[0], append(append(sh[1:], "-s", "--"), "/shown", "")...)
		cmd.Stdin = strings.NewReader(Input(script, hidden...))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", sh[0], err)
		}
		args, argv, _ := strings.Cut(string(out), "argv\x00")
		want := strings.Join(append([]string{"/shown", ""}, hidden...), "\x00") + "\x00"
		if args != want {
			t.Errorf("%s: the script's arguments are %q, want %q", sh[0], args, want)
		}
		if _, after, _ := strings.Cut(argv, "\x00--\x00"); after != "/shown\x00\x00" {
			t.Errorf("%s: the shell's argv is %q, want only the shown arguments after --", sh[0], argv)
		}
	}
	if got := Input("echo\n"); got != "echo\n" {
		t.Errorf("Input with no arguments: %q, want the script alone", got)
	}
}
