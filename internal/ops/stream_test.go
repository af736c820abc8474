package ops

import (
	"bytes"
	"errors"
	"io"
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

// TestStreamInputArguments: the arguments StreamInput frames reach a
// streamed script (lib/stdin.sh's zap_stdin, run as `sh -c`) under dash,
// bash and BusyBox after the argv's, each whole (line breaks, a trailing
// one, empty ones, quotes and $ a shell would expand), with none of them
// on the argv, and the payload after them arrives byte for byte: nothing
// of it was read ahead. A frame cut short, or one whose counts aren't
// numbers, is exit 93 before the function runs.
func TestStreamInputArguments(t *testing.T) {
	hidden := []string{"it's", "two\nlines", "trailing\n", "\n", "", `back\slash`, "$(touch x) `id` $HOME", "-n", "\xff\xfe"}
	payload := []byte("3\n1\nnot an argument\n\x00\xff and no final newline")
	lib, err := scripts.ReadFile("scripts/lib/stdin.sh")
	if err != nil {
		t.Fatal(err)
	}
	script := "zap=test\nzap_fail() { echo \"zap $zap: $2\" >&2; exit \"$1\"; }\n" + string(lib) +
		"f() { for a; do printf '%s\\000' \"$a\"; done; printf 'argv\\000'; cat /proc/$$/cmdline; printf 'payload\\000'; cat; }\n" +
		"zap_stdin f \"$@\"\n"
	run := func(sh []string, stdin io.Reader) ([]byte, error) {
		cmd := exec.Command(sh[0], append(append(sh[1:], "-c", script, "sh"), "/shown", "")...)
		cmd.Stdin = stdin
		return cmd.Output()
	}
	for _, sh := range svcShells(t) {
		out, err := run(sh, StreamInput(hidden, bytes.NewReader(payload)))
		if err != nil {
			t.Fatalf("%s: %v", sh[0], err)
		}
		args, rest, _ := strings.Cut(string(out), "argv\x00")
		want := strings.Join(append([]string{"/shown", ""}, hidden...), "\x00") + "\x00"
		if args != want {
			t.Errorf("%s: the function's arguments are %q, want %q", sh[0], args, want)
		}
		argv, got, _ := strings.Cut(rest, "payload\x00")
		if _, after, _ := strings.Cut(argv, "\x00sh\x00"); after != "/shown\x00\x00" {
			t.Errorf("%s: the shell's argv ends %q, want only the shown arguments after $0", sh[0], after)
		}
		if got != string(payload) {
			t.Errorf("%s: the payload arrived as %q, want %q", sh[0], got, payload)
		}
		for _, bad := range []string{"", "2\n1\na\n", "1\n0\n\n", "x\n", "01\n1\na\n", "1\n2\na\n"} {
			out, err := run(sh, strings.NewReader(bad))
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 93 || strings.Contains(string(out), "argv") {
				t.Errorf("%s: the frame %q: %v, printed %q; want exit 93 with the function not run", sh[0], bad, err, out)
			}
		}
	}
}
