package ops_test

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/vocab"
)

// buildRun runs build.sh as sh (and its account) with TMPDIR tmp: archive
// as a tar.gz source, strip 1, built in src by run, its output out.
func buildRun(t *testing.T, sh userShell, tmp, out string, archive []byte, run string) (int, string) {
	t.Helper()
	s, ok := ops.Script(vocab.OpBuild)
	if !ok {
		t.Fatal("no build script")
	}
	args := []string{"pin", "tar.gz", "1", ".", "source", ops.SHA512Hex(archive), strconv.Itoa(len(archive)), run}
	sh.argv = append([]string{"env", "TMPDIR=" + tmp}, sh.argv...)
	return streamExec(t, sh, s.Text, ops.StreamInput(args, bytes.NewReader(archive)), out)
}

// TestBuildOfAHostileSourceLeavesNothingBehind: a source archive whose
// directories are at mode 0000 (one holding a file the run reads) builds,
// as root and as an account that isn't (uid 65534), and leaves nothing in
// TMPDIR; one holding a fifo or a device is refused (93) saying so, with
// nothing run, nothing built, no special file made and nothing left in
// TMPDIR. (BusyBox's tar, as an account that isn't root, can't write into
// the 0000 directory it makes at the archive's mode: 93, nothing left.)
func TestBuildOfAHostileSourceLeavesNothingBehind(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: no build as another account can be run")
	}
	top := []entry{dir("top/", 0o755), file("top/ok", "ok")}
	zero := archiveOf(t, append(top, dir("top/zero/", 0), dir("top/zero/sub/", 0o755), file("top/zero/sub/f", "inside\n"),
		dir("top/ro/", 0o500), file("top/ro/g", "g"), dir("top/zero/", 0))...)
	bad := map[string]struct {
		e    []entry
		want string
	}{
		"fifo":         {[]entry{{name: "top/fifo", typ: tar.TypeFifo, mode: 0o666}}, "zap build: the tar.gz source holds a fifo: Zap unpacks regular files, directories and symbolic links only; nothing was built"},
		"char device":  {[]entry{{name: "top/null", typ: tar.TypeChar, mode: 0o666, dev: [2]int64{1, 3}}}, "zap build: the tar.gz source holds a character device"},
		"fifo in 0000": {[]entry{dir("top/z/", 0), {name: "top/z/fifo", typ: tar.TypeFifo, mode: 0o600}, dir("top/z/", 0)}, "zap build: the tar.gz source holds a fifo"},
	}
	for who, shells := range extractAccounts(t) {
		for _, sh := range shells {
			t.Run(who+"/"+sh.name+"/0000 directories", func(t *testing.T) {
				tmp, home := homeOf(t, who), homeOf(t, who)
				out := filepath.Join(home, "out")
				exit, stderr := buildRun(t, sh, tmp, out, zero, "cat zero/sub/f > '"+out+"'\n")
				switch {
				case who != "root" && sh.name == "busybox":
					if exit != 93 || !strings.Contains(stderr, "can't be unpacked") {
						t.Errorf("BusyBox's tar as an account: exit %d, %q; want 93, can't be unpacked", exit, stderr)
					}
				case exit != 0:
					t.Errorf("exit %d, %q", exit, stderr)
				default:
					if got := readText(t, out); got != "inside\n" {
						t.Errorf("the run read %q, want the file inside the 0000 directory", got)
					}
				}
				nothingLeft(t, tmp)
			})
			for what, c := range bad {
				t.Run(who+"/"+sh.name+"/"+what, func(t *testing.T) {
					tmp, home := homeOf(t, who), homeOf(t, who)
					out := filepath.Join(home, "out")
					exit, stderr := buildRun(t, sh, tmp, out, archiveOf(t, append(top, c.e...)...), "echo built > '"+out+"'\n")
					if exit != 93 || !strings.Contains(stderr, c.want) {
						t.Errorf("exit %d, %q; want 93, %s", exit, stderr, c.want)
					}
					if _, err := os.Lstat(out); !os.IsNotExist(err) {
						t.Errorf("the run ran: %s is there (%v)", out, err)
					}
					nothingLeft(t, tmp)
					onlyFilesDirsLinks(t, what, who, home)
				})
			}
		}
	}
}

// nothingLeft fails when anything is left in dir.
func nothingLeft(t *testing.T, dir string) {
	t.Helper()
	left, err := os.ReadDir(dir)
	if err != nil || len(left) != 0 {
		names := []string{}
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("left in TMPDIR %s: %v (%v)", dir, names, err)
	}
}
