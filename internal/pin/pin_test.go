package pin

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zeebo/blake3"
)

// TestMain doubles as the binary the tests run: with PIN_TEST_CHILD set it
// prints what /proc/self/exe names and the marker file's content, if any.
func TestMain(m *testing.M) {
	if os.Getenv("PIN_TEST_CHILD") != "" {
		exe, err := os.Readlink("/proc/self/exe")
		if err != nil {
			fmt.Println("readlink:", err)
			os.Exit(3)
		}
		fmt.Printf("exe=%s argv0=%s\n", exe, os.Args[0])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// copyTestBinary copies this test binary to dir/name with mode 755, plus
// extra bytes at its end.
func copyTestBinary(t *testing.T, dir, name string, extra []byte) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(dir, name)
	dst, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Write(extra)
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func sumFile(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := blake3.Sum256(data)
	return hex.EncodeToString(s[:])
}

func runIt(t *testing.T, b *Binary) string {
	t.Helper()
	cmd, err := b.Command(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = []string{"PIN_TEST_CHILD=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	return string(out)
}

// The memfd is what runs: the sealed copy, whatever happens at the path
// after Open.
func TestMemfdRuns(t *testing.T) {
	dir := t.TempDir()
	path := copyTestBinary(t, dir, "zap-eval", nil)
	want := sumFile(t, path)
	b, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Sum != want || b.Cached || !b.Sealed {
		t.Fatalf("Open = sum %s cached %v sealed %v; want sum %s from a sealed memfd", b.Sum, b.Cached, b.Sealed, want)
	}
	// Replace the binary at its path with a script: what runs is still the
	// copy that was hashed.
	os.Remove(path)
	os.WriteFile(path, []byte("#!/bin/sh\necho replaced\n"), 0o755)
	out := runIt(t, b)
	if !strings.HasPrefix(out, "exe=/memfd:zap-eval") || !strings.Contains(out, "argv0=zap-eval") {
		t.Errorf("what ran: %q; want the memfd, argv[0] zap-eval", out)
	}
	// The memfd is sealed: no write reaches it.
	if _, err := b.run.WriteAt([]byte("x"), 0); err == nil {
		t.Errorf("a write to the sealed memfd succeeded")
	}
}

func TestOneByteMoreIsAnotherSum(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(copyTestBinary(t, dir, "a", nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(copyTestBinary(t, dir, "b", []byte{0}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.Sum == b.Sum {
		t.Errorf("a byte appended kept the sum %s", a.Sum)
	}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	bin := copyTestBinary(t, dir, "zap-eval", nil)
	link := filepath.Join(dir, "link")
	os.Symlink(bin, link)
	script := filepath.Join(dir, "script")
	os.WriteFile(script, []byte("#!/bin/sh\nexec zap-eval \"$@\"\n"), 0o755)
	setuid := copyTestBinary(t, dir, "setuid", nil)
	syscall.Chmod(setuid, 0o4755)
	noexec := filepath.Join(dir, "noexec")
	os.WriteFile(noexec, []byte("\x7fELF"), 0o644)
	for path, want := range map[string]string{
		"zap-eval":                    "not an absolute path",
		link:                          "a symbolic link",
		script:                        "a script",
		setuid:                        "set-ID",
		noexec:                        "not executable",
		dir:                           "not a regular file",
		filepath.Join(dir, "missing"): "no such file",
	} {
		b, err := Open(path, Options{})
		if err == nil {
			b.Close()
		}
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) = %v; want refused, %q", path, err, want)
		}
	}
}

type memCache struct {
	m      map[Stat]string
	stores int
}

func (c *memCache) Lookup(st Stat) (string, bool, error) { s, ok := c.m[st]; return s, ok, nil }
func (c *memCache) Store(st Stat, sum string) error      { c.m[st] = sum; c.stores++; return nil }

func TestCache(t *testing.T) {
	dir := t.TempDir()
	path := copyTestBinary(t, dir, "zap-eval", nil)
	c := &memCache{m: map[Stat]string{}}

	// A file written just now isn't recorded.
	b, err := Open(path, Options{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if c.stores != 0 {
		t.Fatalf("a file written just now was recorded")
	}
	// Once settled it is, and the next Open is a hit that runs the file
	// through the descriptor opened.
	later := func() time.Time { return time.Now().Add(Settle + time.Second) }
	b, err = Open(path, Options{Cache: c, Now: later})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if c.stores != 1 {
		t.Fatalf("a settled file wasn't recorded")
	}
	b, err = Open(path, Options{Cache: c, Now: later})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !b.Cached || b.Sealed || b.Sum != sumFile(t, path) {
		t.Fatalf("second Open: cached %v sealed %v sum %s", b.Cached, b.Sealed, b.Sum)
	}
	if out := runIt(t, b); !strings.HasPrefix(out, "exe="+path) {
		t.Errorf("a hit ran %q, want the file itself", out)
	}
	// A write after the check moves the change time: caught before it runs.
	time.Sleep(10 * time.Millisecond)
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write([]byte{0})
	f.Close()
	if _, err := b.Command(context.Background()); !errors.Is(err, ErrChanged) {
		t.Errorf("Command after a write: %v, want ErrChanged", err)
	}
	// And the changed file is no hit: it is hashed again.
	b2, err := Open(path, Options{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if b2.Cached || b2.Sum == b.Sum {
		t.Errorf("the changed file was a hit (sum %s)", b2.Sum)
	}
}
