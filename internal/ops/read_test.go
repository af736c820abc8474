package ops

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zap-go/zap/pkg/plan"
)

// readShells are the shells read.sh runs under: dash with the system's
// tools, and BusyBox's sh with only BusyBox's (a PATH of its applets).
func readShells(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	if dash, err := exec.LookPath("dash"); err == nil {
		out["dash"] = []string{dash, "/usr/bin:/bin"}
	}
	if bb, err := exec.LookPath("busybox"); err == nil {
		bin := t.TempDir()
		for _, applet := range []string{"stat", "cat"} {
			if err := os.Symlink(bb, filepath.Join(bin, applet)); err != nil {
				t.Fatal(err)
			}
		}
		out["busybox"] = []string{bb, bin}
	}
	if len(out) == 0 {
		t.Skip("neither dash nor busybox is installed: nothing to run read.sh with")
	}
	return out
}

func runRead(t *testing.T, shell []string, path string, limit int) ([]byte, int, string) {
	t.Helper()
	script, ok := Script(plan.OpRead)
	if !ok {
		t.Fatal("no read script")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	argv := []string{shell[0]}
	if strings.HasSuffix(shell[0], "busybox") {
		argv = append(argv, "sh")
	}
	argv = append(argv, "-s", "--", path, strconv.Itoa(limit))
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + shell[1], "LC_ALL=C"}
	cmd.Stdin = strings.NewReader(script.Text)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("read.sh %s didn't end: %s", path, stderr.String())
	}
	var ee *exec.ExitError
	status := 0
	if errors.As(err, &ee) {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.Bytes(), status, strings.TrimSpace(stderr.String())
}

// TestReadScript checks read.sh under each shell: a regular file of its own
// is written out byte for byte; a link, a directory, a fifo (not waited
// on), a device and a file with a second name are refused (94), one over
// the limit too (93), and nothing there is 95.
func TestReadScript(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	data := append([]byte("\x00\xff\r\n"), bytes.Repeat([]byte{0xfe, 'x'}, 40000)...)
	for _, err := range []error{
		os.WriteFile(at("orig"), data, 0o600),
		os.Symlink("orig", at("link")),
		os.Mkdir(at("dir"), 0o700),
		syscall.Mkfifo(at("fifo"), 0o600),
		os.WriteFile(at("hard"), data, 0o600),
		os.Link(at("hard"), at("hard2")),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, shell := range readShells(t) {
		t.Run(name, func(t *testing.T) {
			got, status, stderr := runRead(t, shell, at("orig"), len(data))
			if status != 0 || !bytes.Equal(got, data) {
				t.Fatalf("a regular file: exit %d (%s), %d bytes of %d", status, stderr, len(got), len(data))
			}
			for _, c := range []struct {
				path   string
				limit  int
				status int
				msg    string
			}{
				{at("link"), 1 << 20, 94, "zap read: is a symbolic link, not a regular file of its own"},
				{at("dir"), 1 << 20, 94, "zap read: is a directory, not a regular file of its own"},
				{at("fifo"), 1 << 20, 94, "zap read: is a fifo, not a regular file of its own"},
				{"/dev/null", 1 << 20, 94, "zap read: is a character device, not a regular file of its own"},
				{at("hard"), 1 << 20, 94, "zap read: has 2 hard links"},
				{at("orig"), len(data) - 1, 93, "zap read: is larger than 16 MiB"},
				{at("missing"), 1 << 20, 95, "zap read: doesn't exist"},
				{"relative", 1 << 20, 2, "zap read: relative is not an absolute path"},
			} {
				got, status, stderr := runRead(t, shell, c.path, c.limit)
				if status != c.status || !strings.HasPrefix(stderr, c.msg) || len(got) != 0 {
					t.Errorf("%s: exit %d %q, %d bytes; want exit %d %q, nothing", c.path, status, stderr, len(got), c.status, c.msg)
				}
			}
		})
	}
}
