package writetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/localops"
	"github.com/zap-go/zap/internal/scripttest"
)

// helperExtract extracts the archive in the file src into path as zap-exec
// does on a local target (localops, Elevated its sudo fallback), and
// prints the failure.
func helperExtract(path, src string) int {
	b, err := os.ReadFile(src)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	h := localops.New(os.Environ())
	h.Elevated = localops.NewSudo(h)
	if err := extractInto(h, path, b); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// extractInto extracts the tar.gz b into path through h, its sentinel b's
// SHA-512.
func extractInto(h *localops.Host, path string, b []byte) error {
	s := sha512.Sum512(b)
	sha := hex.EncodeToString(s[:])
	x := &execute.Extract{Path: path, Form: "tar.gz", Strip: "0", Provenance: sha[:16]}
	return h.Extract(context.Background(), x, bytes.NewReader(b), int64(len(b)), sha)
}

// member is one entry of an archive a test makes.
type member struct {
	name string
	typ  byte
	mode int64
	link string
}

// tarGz is a tar.gz of members, each regular file holding its name.
func tarGz(t *testing.T, members ...member) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, m := range members {
		h := &tar.Header{Name: m.name, Typeflag: m.typ, Mode: m.mode, Linkname: m.link, Format: tar.FormatGNU}
		if m.typ == tar.TypeBlock {
			h.Devmajor = 8
		}
		if m.typ == tar.TypeReg {
			h.Size = int64(len(m.name))
		}
		must(t, tw.WriteHeader(h))
		if m.typ == tar.TypeReg {
			tw.Write([]byte(m.name))
		}
	}
	must(t, tw.Close())
	must(t, zw.Close())
	return b.Bytes()
}

// rootsIn lists what under dir is root's, or not a regular file, a
// directory or a symbolic link, and the staging directories left there.
func rootsIn(t *testing.T, dir string) []string {
	t.Helper()
	var bad []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			bad = append(bad, err.Error())
			return nil
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid == 0 && p != dir {
			bad = append(bad, p+" is root's")
		}
		if m := fi.Mode(); !m.IsRegular() && !m.IsDir() && m&os.ModeSymlink == 0 {
			bad = append(bad, p+" is "+m.String())
		}
		if strings.Contains(fi.Name(), ".zap-") {
			bad = append(bad, p+" is a staging directory left behind")
		}
		return nil
	})
	return bad
}

// TestArchiveContentsNeverTakeALocalExtractionToRoot: zaptest extracts
// locally, into a directory of its own, with NOPASSWD sudo at hand. An
// archive whose ./ is mode 0500, with a directory at 0000 and one at 0500
// holding files, extracts as zaptest (nothing under it is root's, the
// tree at the mode mkdir gave it, each directory u+rwx), and replaces that
// tree; one holding a fifo or a device fails, not through sudo, with the
// tree as it was. As root, a device in the archive is refused the same
// way, and nothing is placed.
func TestArchiveContentsNeverTakeALocalExtractionToRoot(t *testing.T) {
	w := setup(t)
	sudoers, err := scripttest.SudoersDropIn("zap-writetest-")
	must(t, err)
	t.Cleanup(func() { os.Remove(sudoers) })
	dest := filepath.Join(w.att, "tree")
	run := func(archive []byte) (string, error) {
		src := filepath.Join(w.base, fmt.Sprintf("archive-%d.tar.gz", len(archive)))
		must(t, os.WriteFile(src, archive, 0o644))
		cmd := w.cmd(w.bin, "-test.run=^$", dest, src)
		cmd.Env = append(cmd.Env, helperEnv+"=extract")
		cmd.Env[0] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin"
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	modes := tarGz(t, member{"./", tar.TypeDir, 0o500, ""}, member{"./d/", tar.TypeDir, 0, ""}, member{"./d/sub/", tar.TypeDir, 0o755, ""},
		member{"./d/sub/f", tar.TypeReg, 0o644, ""}, member{"./ro/", tar.TypeDir, 0o500, ""}, member{"./ro/g", tar.TypeReg, 0o644, ""},
		member{"./d/", tar.TypeDir, 0, ""})
	if out, err := run(modes); err != nil {
		t.Fatalf("an archive of 0000 and 0500 directories: %v %s", err, out)
	}
	for p, want := range map[string]os.FileMode{"": 0o755, "d": 0o700, "ro": 0o700, "d/sub": 0o755} {
		if fi, err := os.Lstat(filepath.Join(dest, p)); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s/%s: %v %v, want mode %v", dest, p, fi.Mode(), err, want)
		}
	}
	if bad := rootsIn(t, w.att); len(bad) != 0 {
		t.Fatalf("after an archive of 0000 and 0500 directories: %v", bad)
	}
	again := tarGz(t, member{"./", tar.TypeDir, 0o500, ""}, member{"./x/", tar.TypeDir, 0, ""}, member{"./x/y", tar.TypeReg, 0o644, ""})
	if out, err := run(again); err != nil {
		t.Fatalf("replacing that tree: %v %s", err, out)
	}
	if bad := rootsIn(t, w.att); len(bad) != 0 {
		t.Fatalf("after replacing the tree: %v", bad)
	}
	before := listing(t, dest)
	for what, m := range map[string]member{"a fifo": {"./p", tar.TypeFifo, 0o666, ""}, "a block device": {"./disk", tar.TypeBlock, 0o666, ""}} {
		out, err := run(tarGz(t, member{"./f", tar.TypeReg, 0o644, ""}, m))
		if err == nil || !strings.Contains(out, "the archive holds "+what) || strings.Contains(out, "sudo") {
			t.Errorf("an archive holding %s: %v %q; want the refusal, not through sudo", what, err, out)
		}
		if bad := rootsIn(t, w.att); len(bad) != 0 {
			t.Errorf("after an archive holding %s: %v", what, bad)
		}
		if got := listing(t, dest); got != before {
			t.Errorf("an archive holding %s changed the tree:\n%s\nwas\n%s", what, got, before)
		}
	}

	// As root: the device is refused, nothing placed.
	rootDest := filepath.Join(w.base, "opt", "tree")
	err = extractInto(host(), rootDest, tarGz(t, member{"./f", tar.TypeReg, 0o644, ""}, member{"./disk", tar.TypeBlock, 0o666, ""}))
	if err == nil || !strings.Contains(err.Error(), "the archive holds a block device") {
		t.Errorf("root's extraction of a device: %v, want the refusal", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(rootDest)); len(ents) != 0 {
		t.Errorf("root's refused extraction left %v", ents)
	}
	w.intact()
}

// listing is what lies under dir, a name, its mode and owner a line.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		fmt.Fprintf(&b, "%s %v %d\n", p, fi.Mode(), st.Uid)
		return nil
	})
	return b.String()
}
