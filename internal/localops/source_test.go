package localops

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/pkg/events"
)

// TestReadSource checks the native read of a put's source: a regular file
// of its own is read whole, byte for byte; anything else is refused, the
// fifo without waiting on it.
func TestReadSource(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	data := append([]byte("\x00\xff\r\n"), bytes.Repeat([]byte("z"), 70000)...)
	mustOK(t, os.WriteFile(at("orig"), data, 0o600))
	h := New(nil)
	got, err := h.ReadSource(context.Background(), at("orig"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("a regular file: %d bytes, %v", len(got), err)
	}

	mustOK(t, os.Symlink("orig", at("link")))
	mustOK(t, os.Mkdir(at("dir"), 0o700))
	mustOK(t, syscall.Mkfifo(at("fifo"), 0o600))
	mustOK(t, os.WriteFile(at("hard"), data, 0o600))
	mustOK(t, os.Link(at("hard"), at("hard2")))
	big, err := os.Create(at("big"))
	mustOK(t, err)
	mustOK(t, big.Truncate(execute.SourceLimit+1))
	big.Close()
	exact, err := os.Create(at("exact"))
	mustOK(t, err)
	mustOK(t, exact.Truncate(execute.SourceLimit))
	exact.Close()

	for name, want := range map[string]struct {
		code events.Code
		msg  string
	}{
		"link":    {events.Conflict, "is a symbolic link, not a regular file of its own"},
		"dir":     {events.Conflict, "is a directory, not a regular file of its own"},
		"fifo":    {events.Conflict, "is a fifo, not a regular file of its own"},
		"hard":    {events.Conflict, "has 2 hard links"},
		"big":     {events.Permanent, "is larger than 16 MiB"},
		"missing": {events.NotFound, "doesn't exist"},
	} {
		_, err := h.ReadSource(context.Background(), at(name))
		if code, _, _ := execute.Classify(err); err == nil || code != want.code || !strings.HasPrefix(err.Error(), want.msg) {
			t.Errorf("%s: %v (%s), want %q (%s)", name, err, code, want.msg, want.code)
		}
	}
	if _, err := h.ReadSource(context.Background(), "/dev/null"); err == nil || !strings.Contains(err.Error(), "is a character device") {
		t.Errorf("/dev/null: %v", err)
	}
	if got, err := h.ReadSource(context.Background(), at("exact")); err != nil || len(got) != execute.SourceLimit {
		t.Errorf("exactly 16 MiB: %d bytes, %v", len(got), err)
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
