package ownfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/canon"
)

var errRefused = errors.New("refused")

func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o644); err != nil {
		t.Fatal(err)
	}
	own := Rules{Refused: errRefused, Own: true, UID: os.Geteuid()}
	private := own
	private.Private = true

	if b, err := Read(file, 6, private); err != nil || string(b) != "hello\n" {
		t.Errorf("Read(file) = %q, %v", b, err)
	}
	for _, c := range []struct {
		name, path string
		r          Rules
		want       string
	}{
		{"a link", link, own, "a symbolic link"},
		{"a directory", dir, own, "not a regular file"},
		{"another owner", file, Rules{Refused: errRefused, Own: true, UID: os.Geteuid() + 1}, "it belongs to uid"},
		{"readable by others, private", open, private, "other accounts can use it"},
	} {
		_, err := Read(c.path, 100, c.r)
		if !errors.Is(err, errRefused) || !strings.HasPrefix(err.Error(), c.path+": refused: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q refused", c.name, err, c.want)
		}
	}
	if _, err := Read(open, 100, own); err != nil {
		t.Errorf("readable by others, not private: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "none"), 100, own); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("nothing there: %v, want ErrNotExist", err)
	}
	var limit *canon.LimitError
	if _, err := Read(file, 5, own); !errors.As(err, &limit) || limit.Bound != canon.BoundSize || limit.Limit != 5 {
		t.Errorf("past the bound: %v, want a size LimitError of 5", err)
	}
	special := errors.New("special")
	r := Rules{Refused: errRefused, NotRegular: func(string, os.FileInfo) error { return special }}
	if _, err := Read(dir, 100, r); err != special {
		t.Errorf("NotRegular: %v, want its error", err)
	}
}
