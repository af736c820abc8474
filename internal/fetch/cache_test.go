package fetch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCacheHitNeedsNoServer(t *testing.T) {
	t.Parallel()
	body := "kept for later"
	s, f, c, r := served(t, body, "/later")
	if e, err := f.Fetch(context.Background(), r); err != nil {
		t.Fatal(err)
	} else {
		e.Close()
	}
	s.Close()
	// A Fetcher of its own over the same directory, the server gone.
	f2 := New(NewCache(c.Dir()), Options{})
	t.Cleanup(f2.Close)
	e, err := f2.Fetch(context.Background(), r)
	if err != nil || readEntry(t, e) != body {
		t.Fatalf("cache hit with no server: %v", err)
	}
	e, err = c.Open(sum(body))
	if err != nil || readEntry(t, e) != body || e.Blake3 != sum(body) {
		t.Fatalf("Open: %v", err)
	}
	if _, err := c.Open(sum("never fetched")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing pin: %v, want ErrNotExist", err)
	}
	if _, err := NewCache(filepath.Join(t.TempDir(), "none")).Open(sum(body)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open in a missing directory: %v, want ErrNotExist", err)
	}
	if _, err := c.Open("../../etc/passwd"); !errors.Is(err, ErrRefused) {
		t.Errorf("Open of a name that isn't a pin: %v", err)
	}
}

func TestCacheCorruptEntryIsRemovedAndFetchedAgain(t *testing.T) {
	t.Parallel()
	body := "the pinned bytes"
	s, f, c, r := served(t, body, "/pinned")
	e, err := f.Fetch(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	path := filepath.Join(c.Dir(), r.Pin)
	corrupt := func() {
		if err := os.WriteFile(path, []byte("the pinned byteZ"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	corrupt()
	_, err = c.Open(r.Pin)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), sum("the pinned byteZ")) {
		t.Errorf("Open of a corrupt entry: %v", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the corrupt entry is still there: %v", err)
	}
	corrupt()
	if e, err := f.Fetch(context.Background(), r); err != nil || readEntry(t, e) != body {
		t.Fatalf("Fetch over a corrupt entry: %v", err)
	}
	if hits, _ := s.seen(); hits != 2 {
		t.Errorf("%d requests, want the corrupt entry fetched again", hits)
	}
	// With the server gone, a corrupt entry is a failed fetch.
	corrupt()
	s.Close()
	_, err = f.Fetch(context.Background(), r)
	if msg := errText(t, err); !strings.HasPrefix(msg, "fetch "+r.Declared+": ") {
		t.Errorf("a corrupt entry, no server: %q", msg)
	}
}

func TestCacheRefusesWhatIsntItsOwn(t *testing.T) {
	t.Parallel()
	pin := sum("x")
	for name, setup := range map[string]func(t *testing.T, dir string) string{
		"an entry that is a link": func(t *testing.T, dir string) string {
			must(t, os.Mkdir(dir, 0o700))
			target := filepath.Join(filepath.Dir(dir), "elsewhere")
			must(t, os.WriteFile(target, []byte("x"), 0o600))
			must(t, os.Symlink(target, filepath.Join(dir, pin)))
			return "a symbolic link"
		},
		"an entry others can read": func(t *testing.T, dir string) string {
			must(t, os.Mkdir(dir, 0o700))
			must(t, os.WriteFile(filepath.Join(dir, pin), []byte("x"), 0o600))
			must(t, os.Chmod(filepath.Join(dir, pin), 0o644))
			return "other accounts can use it"
		},
		"an entry that is a directory": func(t *testing.T, dir string) string {
			must(t, os.MkdirAll(filepath.Join(dir, pin), 0o700))
			return "not a regular file"
		},
		"a directory others can use": func(t *testing.T, dir string) string {
			must(t, os.Mkdir(dir, 0o700))
			must(t, os.Chmod(dir, 0o755))
			return "other accounts can use it"
		},
		"a directory that is a link": func(t *testing.T, dir string) string {
			real := filepath.Join(filepath.Dir(dir), "real")
			must(t, os.Mkdir(real, 0o700))
			must(t, os.Symlink(real, dir))
			return "a symbolic link"
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "files")
			want := setup(t, dir)
			c := NewCache(dir)
			_, err := c.Open(pin)
			if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), want) {
				t.Errorf("Open: %v, want untrusted: %s", err, want)
			}
			if _, err := c.Add(strings.NewReader("x"), pin, 10); !strings.Contains(name, "entry") && !errors.Is(err, ErrUntrusted) {
				t.Errorf("Add: %v, want the directory untrusted", err)
			}
		})
	}
}

func TestCacheAddChecksThePin(t *testing.T) {
	t.Parallel()
	c := NewCache(filepath.Join(t.TempDir(), "a", "b"))
	e, err := c.Add(strings.NewReader("target bytes"), sum("target bytes"), 100)
	if err != nil || readEntry(t, e) != "target bytes" {
		t.Fatalf("Add: %v", err)
	}
	if _, err := c.Add(strings.NewReader("other bytes"), sum("target bytes"), 100); !errors.Is(err, ErrMismatch) {
		t.Errorf("Add of other bytes: %v", err)
	}
	if _, err := c.Add(strings.NewReader("too many bytes"), "", 5); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Add over the bound: %v", err)
	}
	if names := entries(t, c); len(names) != 1 {
		t.Errorf("cache holds %v", names)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
