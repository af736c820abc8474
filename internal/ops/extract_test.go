package ops_test

// The extract operation's script under dash, bash and BusyBox (its ash,
// tar and the other tools it calls as applets first on PATH; getfacl stays
// the machine's own): what it extracts and what it refuses, with whatever
// PATH held left as it was.

import (
	"bytes"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/plan"
)

// extractBusyboxTools are the commands extract.sh and lib/walk.sh use that
// BusyBox has as applets (Alpine's are BusyBox's).
var extractBusyboxTools = []string{"awk", "cat", "chmod", "chown", "df", "find", "head", "id", "ls", "mkdir", "mktemp", "mv", "rm", "rmdir", "sha512sum", "sort", "stat", "tail", "tar", "uniq"}

// extractShells are dash, bash and BusyBox's ash with its applets first on
// PATH.
func extractShells(t *testing.T) []userShell {
	t.Helper()
	return opShells(t, "extract", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", extractBusyboxTools)
}

// extractRun runs extract.sh for PATH with archive as the content sent;
// sha "" is archive's own SHA-512.
func extractRun(t *testing.T, sh userShell, path string, archive []byte, sha, strip, prov string) (int, string) {
	t.Helper()
	return extractForm(t, sh, path, archive, "tar.gz", sha, strip, prov)
}

// extractForm is extractRun for an archive of the given form.
func extractForm(t *testing.T, sh userShell, path string, archive []byte, form, sha, strip, prov string) (int, string) {
	t.Helper()
	s, ok := ops.Script(plan.OpExtract)
	if !ok {
		t.Fatal("no extract script")
	}
	if sha == "" {
		sha = ops.SHA512Hex(archive)
	}
	args := []string{sha, strconv.Itoa(len(archive)), form, strip, prov, "", "", ""}
	return streamExec(t, sh, s.Text, ops.StreamInput(args, bytes.NewReader(archive)), path)
}

// treeOf lists what lies under dir, a name and its mode (and a file's body)
// a line, so a refusal can be shown to have changed nothing.
func treeOf(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + " " + fi.Mode().String())
		if fi.Mode().IsRegular() {
			body, _ := os.ReadFile(p)
			b.WriteString(" " + strconv.Quote(string(body)))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// noStaging fails when a staging directory is left beside PATH.
func noStaging(t *testing.T, what, parent string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(parent, ".*.zap-*"))
	if len(left) != 0 {
		t.Errorf("%s: staging left behind: %v", what, left)
	}
}

// TestExtractScript: strip 0 and 1 (and a tar.xz with strip 2), set-id and group or world write bits
// dropped, the sentinel written, a second extraction replacing the first,
// and the refusals of a directory holding foreign files and of an archive
// whose SHA-512 isn't the one sent, each leaving PATH as it was.
func TestExtractScript(t *testing.T) {
	v1 := ops.Tarball(t, [][2]string{{"top/", ""}, {"top/a", "one"}, {"top/suid", "x"}, {"top/wide", "x"}, {"top/sgid/", ""}, {"top/sgid/f", "f"}}, false,
		map[string]int64{"top/suid": 0o4755, "top/wide": 0o666, "top/sgid/": 0o2777})
	v2 := ops.Tarball(t, [][2]string{{"pkg-2/", ""}, {"pkg-2/b", "two"}}, false, nil)
	var v3 []byte
	if _, err := exec.LookPath("xz"); err == nil {
		cmd := exec.Command("xz", "-c")
		cmd.Stdin = bytes.NewReader(ops.Tarball(t, [][2]string{{"x/y/c", "xz"}}, true, nil))
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		v3 = out
	}
	for _, sh := range extractShells(t) {
		t.Run(sh.name, func(t *testing.T) {
			parent := t.TempDir()
			dest := filepath.Join(parent, "sub", "tree")
			if exit, stderr := extractRun(t, sh, dest, v1, "", "0", "v1 prov"); exit != 0 {
				t.Fatalf("strip 0: exit %d, %s", exit, stderr)
			}
			want := ". drwxr-xr-x\n.zap_remote_hash -rw-r--r-- \"v1 prov\\n\"\ntop drwxr-xr-x\ntop/a -rw-r--r-- \"one\"\n" +
				"top/sgid drwxr-xr-x\ntop/sgid/f -rw-r--r-- \"f\"\ntop/suid -rwxr-xr-x \"x\"\ntop/wide -rw-r--r-- \"x\"\n"
			if got := treeOf(t, dest); got != want {
				t.Errorf("strip 0: tree\n%s\nwant\n%s", got, want)
			}
			if exit, stderr := extractRun(t, sh, dest, v2, "", "1", "v2 prov"); exit != 0 {
				t.Fatalf("strip 1, replacing: exit %d, %s", exit, stderr)
			}
			want = ". drwxr-xr-x\n.zap_remote_hash -rw-r--r-- \"v2 prov\\n\"\nb -rw-r--r-- \"two\"\n"
			if got := treeOf(t, dest); got != want {
				t.Errorf("strip 1, replacing Zap's tree: tree\n%s\nwant\n%s", got, want)
			}
			noStaging(t, "after two extractions", filepath.Dir(dest))
			if v3 == nil {
				t.Log("no xz on this machine: tar.xz not tried")
			} else {
				if exit, stderr := extractForm(t, sh, dest, v3, "tar.xz", "", "2", "v3 prov"); exit != 0 {
					t.Fatalf("tar.xz, strip 2: exit %d, %s", exit, stderr)
				}
				want = ". drwxr-xr-x\n.zap_remote_hash -rw-r--r-- \"v3 prov\\n\"\nc -rw-r--r-- \"xz\"\n"
				if got := treeOf(t, dest); got != want {
					t.Errorf("tar.xz, strip 2: tree\n%s\nwant\n%s", got, want)
				}
			}

			// Another SHA-512: 93, the tree as it was.
			before := treeOf(t, dest)
			exit, stderr := extractRun(t, sh, dest, v1, strings.Repeat("0", 128), "0", "v3 prov")
			if exit != 93 || !strings.Contains(stderr, "not the archive sent") {
				t.Errorf("another SHA-512: exit %d, %q; want 93, not the archive sent", exit, stderr)
			}
			if got := treeOf(t, dest); got != before {
				t.Errorf("another SHA-512 changed the tree:\n%s", got)
			}
			noStaging(t, "another SHA-512", filepath.Dir(dest))

			// A directory of someone else's files: 94, untouched.
			foreign := filepath.Join(parent, "foreign")
			if err := os.MkdirAll(filepath.Join(foreign, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(foreign, "d", "mine"), []byte("mine"), 0o600); err != nil {
				t.Fatal(err)
			}
			before = treeOf(t, foreign)
			exit, stderr = extractRun(t, sh, foreign, v1, "", "0", "v1 prov")
			if exit != 94 || !strings.Contains(stderr, "holds files Zap didn't extract") {
				t.Errorf("foreign files: exit %d, %q; want 94, holds files Zap didn't extract", exit, stderr)
			}
			if got := treeOf(t, foreign); got != before {
				t.Errorf("foreign files: the directory changed:\n%s", got)
			}
			noStaging(t, "foreign files", parent)
		})
	}
}

// TestExtractACLRefused: a tree of Zap's own with a POSIX access list on it
// is not replaced (94), and stays as it was.
func TestExtractACLRefused(t *testing.T) {
	if _, err := exec.LookPath("setfacl"); err != nil {
		t.Skip("setfacl is not installed (apt-get install acl): no access list to refuse")
	}
	v1 := ops.Tarball(t, [][2]string{{"a", "one"}}, false, nil)
	for _, sh := range extractShells(t) {
		t.Run(sh.name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "tree")
			if exit, stderr := extractRun(t, sh, dest, v1, "", "0", "v1"); exit != 0 {
				t.Fatalf("first extraction: exit %d, %s", exit, stderr)
			}
			if out, err := exec.Command("setfacl", "-m", "u:nobody:r", dest).CombinedOutput(); err != nil {
				t.Skipf("setfacl -m u:nobody:r %s: %v: %s (the filesystem under TMPDIR refuses access lists)", dest, err, out)
			}
			before := treeOf(t, dest)
			v2 := ops.Tarball(t, [][2]string{{"b", "two"}}, false, nil)
			exit, stderr := extractRun(t, sh, dest, v2, "", "0", "v2")
			if exit != 94 || !strings.Contains(stderr, "has an access list") {
				t.Errorf("access list: exit %d, %q; want 94, has an access list", exit, stderr)
			}
			if got := treeOf(t, dest); got != before {
				t.Errorf("access list: the tree changed:\n%s\nwas\n%s", got, before)
			}
			noStaging(t, "access list", filepath.Dir(dest))
		})
	}
}

// TestExtractNoRoom: on a 256 KiB tmpfs an archive of 200 KiB (which needs
// three times that) is refused (93) and the tree there stays.
func TestExtractNoRoom(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: no small tmpfs can be mounted to run out of room on")
	}
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=256k,mode=0755"); err != nil {
		t.Skipf("mount -t tmpfs %s: %v: no small filesystem to run out of room on", mnt, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, syscall.MNT_DETACH); err != nil {
			t.Errorf("umount %s: %v", mnt, err)
		}
	})
	small := ops.Tarball(t, [][2]string{{"a", "one"}}, false, nil)
	noise := make([]byte, 200<<10)
	rand.Read(noise)
	big := ops.Tarball(t, [][2]string{{"noise", string(noise)}}, false, nil)
	for _, sh := range extractShells(t) {
		t.Run(sh.name, func(t *testing.T) {
			dest := filepath.Join(mnt, sh.name)
			if exit, stderr := extractRun(t, sh, dest, small, "", "0", "small"); exit != 0 {
				t.Fatalf("first extraction: exit %d, %s", exit, stderr)
			}
			before := treeOf(t, dest)
			exit, stderr := extractRun(t, sh, dest, big, "", "0", "big")
			if exit != 93 || !strings.Contains(stderr, "no room beside") {
				t.Errorf("no room: exit %d, %q; want 93, no room beside", exit, stderr)
			}
			if got := treeOf(t, dest); got != before {
				t.Errorf("no room: the tree changed:\n%s\nwas\n%s", got, before)
			}
			noStaging(t, "no room", mnt)
		})
	}
}

// withoutGetfacl is a directory holding a link to every command on the
// machine's PATH but getfacl, so a shell with only it on PATH finds GNU ls
// and no getfacl.
func withoutGetfacl(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"} {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			link := filepath.Join(dir, e.Name())
			if e.Name() == "getfacl" || e.IsDir() {
				continue
			}
			if _, err := os.Lstat(link); err == nil {
				continue // an earlier directory on PATH has it
			}
			if err := os.Symlink(filepath.Join(d, e.Name()), link); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// setACL puts an access list on path with setfacl ARGS, skipping the test
// where the filesystem refuses one.
func setACL(t *testing.T, path string, args ...string) {
	t.Helper()
	if out, err := exec.Command("setfacl", append(args, path)...).CombinedOutput(); err != nil {
		t.Skipf("setfacl %v %s: %v: %s (the filesystem under TMPDIR refuses access lists)", args, path, err, out)
	}
}

// TestExtractACLThroughLs: with no getfacl on PATH, an access list (and a
// default one alone) is still seen through the + GNU ls -l prints, and the
// tree is not replaced (94); under BusyBox, whose ls prints no +, with no
// getfacl either, nothing can show the list and the tree is replaced, as
// the rule says for a target with neither.
func TestExtractACLThroughLs(t *testing.T) {
	if _, err := exec.LookPath("setfacl"); err != nil {
		t.Skip("setfacl is not installed (apt-get install acl): no access list to look for")
	}
	bin := withoutGetfacl(t)
	if out, err := exec.Command(filepath.Join(bin, "ls"), "--version").CombinedOutput(); err != nil || !strings.Contains(string(out), "GNU coreutils") {
		t.Skipf("ls here is not GNU ls (%v: %.40q): no + to read", err, out)
	}
	v1 := ops.Tarball(t, [][2]string{{"a", "one"}}, false, nil)
	v2 := ops.Tarball(t, [][2]string{{"b", "two"}}, false, nil)
	for _, sh := range extractShells(t) {
		if sh.name == "busybox" {
			continue
		}
		sh.path = bin
		for what, args := range map[string][]string{"access list": {"-m", "u:nobody:r"}, "default list": {"-d", "-m", "u:nobody:r"}} {
			t.Run(sh.name+"/"+what, func(t *testing.T) {
				dest := filepath.Join(t.TempDir(), "tree")
				if exit, stderr := extractRun(t, sh, dest, v1, "", "0", "v1"); exit != 0 {
					t.Fatalf("first extraction: exit %d, %s", exit, stderr)
				}
				setACL(t, dest, args...)
				before := treeOf(t, dest)
				exit, stderr := extractRun(t, sh, dest, v2, "", "0", "v2")
				if exit != 94 || !strings.Contains(stderr, "has an access list") {
					t.Errorf("%s, no getfacl: exit %d, %q; want 94, has an access list", what, exit, stderr)
				}
				if got := treeOf(t, dest); got != before {
					t.Errorf("%s, no getfacl: the tree changed:\n%s\nwas\n%s", what, got, before)
				}
				noStaging(t, what, filepath.Dir(dest))
			})
		}
	}
	bb, err := exec.LookPath("busybox")
	if err != nil {
		t.Skip("busybox is not installed (apt-get install busybox): a target with neither getfacl nor GNU ls not tried")
	}
	t.Run("busybox/neither", func(t *testing.T) {
		applets := t.TempDir()
		for _, tool := range extractBusyboxTools {
			if err := os.Symlink(bb, filepath.Join(applets, tool)); err != nil {
				t.Fatal(err)
			}
		}
		sh := userShell{name: "busybox", argv: []string{bb, "ash"}, path: applets + ":" + bin}
		dest := filepath.Join(t.TempDir(), "tree")
		if exit, stderr := extractRun(t, sh, dest, v1, "", "0", "v1"); exit != 0 {
			t.Fatalf("first extraction: exit %d, %s", exit, stderr)
		}
		setACL(t, dest, "-m", "u:nobody:r")
		if exit, stderr := extractRun(t, sh, dest, v2, "", "0", "v2"); exit != 0 {
			t.Fatalf("neither getfacl nor GNU ls: exit %d, %s; want 0, the list unseen", exit, stderr)
		}
		want := ". drwxr-xr-x\n.zap_remote_hash -rw-r--r-- \"v2\\n\"\nb -rw-r--r-- \"two\"\n"
		if got := treeOf(t, dest); got != want {
			t.Errorf("neither getfacl nor GNU ls: tree\n%s\nwant\n%s", got, want)
		}
		noStaging(t, "neither", filepath.Dir(dest))
	})
}
