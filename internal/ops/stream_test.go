package ops

import (
	"bytes"
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

// TestPutInputReaderSameStream: the streamed input is byte for byte the
// one PutInput builds whole, at line boundaries and around them.
func TestPutInputReaderSameStream(t *testing.T) {
	for _, n := range []int{0, 1, 56, 57, 58, 114, 1000, 1 << 16} {
		content := make([]byte, n)
		for i := range content {
			content[i] = byte(i*7 + n)
		}
		got, err := io.ReadAll(PutInputReader("script", bytes.NewReader(content)))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if want := PutInput("script", content); !bytes.Equal(got, want) {
			t.Errorf("%d bytes: the stream differs from PutInput's", n)
		}
	}
}
