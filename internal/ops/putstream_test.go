package ops_test

// The put script as a put whose content is too large to hold runs it
// (put-stream: sh -c, the framed arguments and then the raw bytes on
// stdin), under dash, bash and BusyBox's ash: any bytes arrive, a digest or
// a length that isn't the content's installs nothing, and the shell and
// what it starts never hold the content, where the here-document's shell
// does.

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/ops/asroot"
	"github.com/zap-go/zap/pkg/plan"
)

// putStreamTools are the commands the streamed put uses that BusyBox has.
var putStreamTools = []string{"cat", "chmod", "chown", "mkdir", "mktemp", "mv", "rm", "sha512sum", "stat"}

// streamPutCmd is a run of the streamed put script under sh writing
// content (size bytes) at path, the digest and length sent being sum and
// length.
func streamPutCmd(t *testing.T, sh userShell, at, mode string, content io.Reader, sum string, length int64) *exec.Cmd {
	t.Helper()
	s, ok := ops.Script(plan.OpPutStream)
	if !ok || s.Invocation != ops.StreamInvocation {
		t.Fatalf("no put-stream script run as %q", ops.StreamInvocation)
	}
	p := &execute.Put{Path: at, Mode: mode, SHA512: sum, Body: &execute.Body{Size: length}}
	argv, hidden := asroot.PutArgs(p, "")
	cmd := exec.Command(sh.argv[0], append(append(append([]string(nil), sh.argv[1:]...), "-c", s.Text, "sh"), argv...)...)
	cmd.Stdin = ops.StreamInput(hidden, content)
	cmd.Env = []string{"LC_ALL=C", "PATH=" + sh.path}
	cmd.Dir = "/"
	return cmd
}

func hexSum(b []byte) string {
	s := sha512.Sum512(b)
	return hex.EncodeToString(s[:])
}

// TestStreamPut: bytes no here-document could carry as they are (NULs, a
// line that is the here-document's end, no newline at the end) arrive
// whole; a wrong digest, a short or long content, write nothing and leave
// no staged file.
func TestStreamPut(t *testing.T) {
	content := []byte("a\x00b\n" + ops.ContentEnd + "\n\xff\xfe tail without newline")
	for _, sh := range opShells(t, "put", os.Getenv("PATH"), putStreamTools) {
		t.Run(sh.name, func(t *testing.T) {
			dir := t.TempDir()
			at := filepath.Join(dir, "sub", "f")
			out, err := streamPutCmd(t, sh, at, "640", bytes.NewReader(content), hexSum(content), int64(len(content))).CombinedOutput()
			if err != nil {
				t.Fatalf("put: %v: %s", err, out)
			}
			got, err := os.ReadFile(at)
			if err != nil || !bytes.Equal(got, content) {
				t.Fatalf("%s holds %q (%v), want %q", at, got, err, content)
			}
			if fi, _ := os.Stat(at); fi.Mode().Perm() != 0o640 {
				t.Fatalf("%s has mode %v, want 0640", at, fi.Mode().Perm())
			}
			other := []byte("other bytes")
			for _, c := range []struct {
				name   string
				body   []byte
				sum    string
				length int64
			}{
				{"wrong digest", other, hexSum(content), int64(len(other))},
				{"short", other[:4], hexSum(other), int64(len(other))},
				{"long", append(append([]byte(nil), other...), 'x'), hexSum(other), int64(len(other))},
				{"no arguments", nil, "", 0},
			} {
				cmd := streamPutCmd(t, sh, at, "600", bytes.NewReader(c.body), c.sum, c.length)
				if c.name == "no arguments" {
					cmd.Stdin = strings.NewReader("")
				}
				out, err := cmd.CombinedOutput()
				var ee *exec.ExitError
				if !errorsAs(err, &ee) || ee.ExitCode() != 93 {
					t.Fatalf("%s: got %v, want exit 93: %s", c.name, err, out)
				}
				if got, _ := os.ReadFile(at); !bytes.Equal(got, content) {
					t.Fatalf("%s: %s changed to %q", c.name, at, got)
				}
				if left, _ := filepath.Glob(filepath.Join(dir, "sub", ".zap.*")); len(left) != 0 {
					t.Fatalf("%s: left %v", c.name, left)
				}
			}
		})
	}
}

func errorsAs(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*ee = e
	return ok
}

// TestStreamPutMemory: a 48 MiB put through the streamed script never
// costs the shell and what it starts (their peak resident set, as GNU time
// reads it from wait4) 16 MiB; under dash the same put through the
// here-document costs more than the file, so the measure can fail.
func TestStreamPutMemory(t *testing.T) {
	const size = 48 << 20
	const bound = 16 << 10 // KiB
	gnuTime := "/usr/bin/time"
	if _, err := os.Stat(gnuTime); err != nil {
		t.Skip("GNU time (/usr/bin/time) is not installed, so a shell's peak memory can't be read")
	}
	content := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	sum := hexSum(content)
	peak := func(t *testing.T, cmd *exec.Cmd) int64 {
		t.Helper()
		rss := filepath.Join(t.TempDir(), "rss")
		cmd.Args = append([]string{gnuTime, "-f", "%M", "-o", rss}, cmd.Args...)
		cmd.Path = gnuTime
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		b, err := os.ReadFile(rss)
		lines := strings.Fields(string(b))
		if err != nil || len(lines) == 0 {
			t.Fatalf("GNU time wrote no peak: %v", err)
		}
		kb, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return kb
	}
	for _, sh := range opShells(t, "put", os.Getenv("PATH"), putStreamTools) {
		t.Run(sh.name, func(t *testing.T) {
			at := filepath.Join(t.TempDir(), "big")
			streamed := peak(t, streamPutCmd(t, sh, at, "", bytes.NewReader(content), sum, size))
			if fi, err := os.Stat(at); err != nil || fi.Size() != size {
				t.Fatalf("%s: %v, want %d bytes", at, err, size)
			}
			t.Logf("%s: peak %d KiB streamed, for a file of %d KiB", sh.name, streamed, size>>10)
			if streamed >= bound {
				t.Fatalf("the streamed put peaked at %d KiB, over %d KiB, for a file of %d KiB", streamed, bound, size>>10)
			}
			if sh.name != "dash" {
				return
			}
			heredoc := peak(t, putCmd(sh, sh.path, at, string(content)))
			t.Logf("dash: peak %d KiB through the here-document", heredoc)
			if heredoc < size>>10 {
				t.Fatalf("dash's here-document put peaked at %d KiB, under the file's %d KiB: this measure can't tell the two apart", heredoc, size>>10)
			}
		})
	}
}
