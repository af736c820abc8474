package projfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRead reads a project's files and refuses every way out of it, each
// file that isn't regular and a file over the bound, naming why.
func TestRead(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "project")
	for _, d := range []string{root, filepath.Join(root, "files"), filepath.Join(root, "sub")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, data []byte) {
		t.Helper()
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := []byte{0x89, 'P', 'N', 'G', 0, 0xff}
	write(filepath.Join(root, "files", "logo.png"), bin)
	write(filepath.Join(base, "secret"), []byte("outside"))
	for link, to := range map[string]string{
		"files/abs":      filepath.Join(base, "secret"),
		"files/up":       "../../secret",
		"files/in":       "logo.png",
		"sub/files":      "../files",
		"files/absinner": filepath.Join(root, "files", "logo.png"),
	} {
		if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "files", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(root, "files", "big"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(MaxFile + 1); err != nil {
		t.Fatal(err)
	}
	big.Close()
	write(filepath.Join(root, "files", "max"), make([]byte, MaxFile))

	d, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, rel := range []string{"files/logo.png", "files/in", "sub/files/logo.png"} {
		got, abs, err := d.Read(rel)
		if err != nil || !bytes.Equal(got, bin) || abs != filepath.Join(root, rel) {
			t.Errorf("Read(%q) = %q, %q, %v; want the png's bytes", rel, got, abs, err)
		}
	}
	if got, _, err := d.Read("files/max"); err != nil || len(got) != MaxFile {
		t.Errorf("a file of MaxFile bytes: %d bytes, %v", len(got), err)
	}
	for rel, want := range map[string]string{
		"../secret":         "is not a clean path inside the project",
		"files/abs":         "leads outside the project",
		"files/up":          "leads outside the project",
		"files/absinner":    "leads outside the project", // an absolute link is refused, wherever it points
		"files/fifo":        "is a fifo, not a regular file",
		"files":             "is a directory, not a regular file",
		"files/big":         "is 4194305 bytes, more than the 4194304 (4 MiB)",
		"files/missing.txt": "no such file in the project",
		"files/logo.png/x":  "a part of the path is not a directory",
	} {
		_, _, err := d.Read(rel)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), rel+": ") {
			t.Errorf("Read(%q): %v, want %q", rel, err, want)
		}
	}
}
