package writetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/scripttest"
)

// TestLocalWriteDeniedGoesThroughSudo runs a local write as zaptest into a
// directory only root may write: the native write is denied, and the same
// put runs whole under sudo -n (the put script), or, when sudo would ask
// for a password, fails with the fixed reason and writes nothing.
func TestLocalWriteDeniedGoesThroughSudo(t *testing.T) {
	w := setup(t)
	dir := filepath.Join(w.base, "etc")
	must(t, os.Mkdir(dir, 0o755))
	f := filepath.Join(dir, "conf")
	helper := "elevated"
	run := func(path string) (string, error) {
		cmd := w.cmd(w.bin, "-test.run=^$", f, "from zaptest\n")
		cmd.Env = append(cmd.Env, helperEnv+"="+helper)
		cmd.Env[0] = "PATH=" + path
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	// A sudo that would prompt: the fixed failure, nothing written.
	fake := filepath.Join(w.base, "fakebin")
	must(t, os.Mkdir(fake, 0o755))
	must(t, os.WriteFile(filepath.Join(fake, "sudo"), []byte("#!/bin/sh\necho 'sudo: a password is required' >&2\nexit 1\n"), 0o755))
	out, err := run(fake + ":/usr/bin:/bin")
	if err == nil || strings.TrimSpace(out) != "sudo authentication failed" {
		t.Fatalf("a write whose sudo would prompt: %v %q, want sudo authentication failed", err, out)
	}
	if _, err := os.Lstat(f); !os.IsNotExist(err) {
		t.Fatalf("%s was written: %v", f, err)
	}

	// A sudo that lets zaptest: the put script runs as root.
	sudoers, err := scripttest.SudoersDropIn("zap-writetest-")
	must(t, err)
	t.Cleanup(func() { os.Remove(sudoers) })
	if out, err := run("/usr/sbin:/usr/bin:/sbin:/bin"); err != nil {
		t.Fatalf("a write through sudo: %v %s", err, out)
	}
	// A new file takes its directory's owner: root's, as the script gives it.
	wantFile(t, f, []byte("from zaptest\n"), 0o644, 0, 0)
	// A Body (a remote file's bytes) through sudo: the streamed put script
	// (sudo -n sh -c), the same rules.
	helper = "elevatedbody"
	f = filepath.Join(dir, "streamed")
	if out, err := run("/usr/sbin:/usr/bin:/sbin:/bin"); err != nil {
		t.Fatalf("a streamed write through sudo: %v %s", err, out)
	}
	wantFile(t, f, []byte("from zaptest\n"), 0o644, 0, 0)
	helper = "elevated"

	// A directory zaptest may write but whose owner it can't give: what is
	// made there is made through sudo, given root's owner and the group.
	grp := filepath.Join(w.base, "grp")
	must(t, os.Mkdir(grp, 0o775))
	must(t, os.Chown(grp, 0, w.gid))
	must(t, os.Chmod(grp, 0o775))
	f = filepath.Join(grp, "sub", "conf")
	if out, err := run("/usr/sbin:/usr/bin:/sbin:/bin"); err != nil {
		t.Fatalf("a write through sudo: %v %s", err, out)
	}
	if st := lstat(t, filepath.Dir(f)); st.Uid != 0 || int(st.Gid) != w.gid {
		t.Fatalf("the directory made is %d:%d, want 0:%d", st.Uid, st.Gid, w.gid)
	}
	wantFile(t, f, []byte("from zaptest\n"), 0o644, 0, w.gid)
	if left, _ := filepath.Glob(filepath.Join(dir, ".zap.*")); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
	w.intact()
}
