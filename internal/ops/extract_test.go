package ops_test

// The extract operation's script under dash, bash and BusyBox (its ash,
// tar and the other tools it calls as applets first on PATH; getfacl stays
// the machine's own): what it extracts and what it refuses, with whatever
// PATH held left as it was.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
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
var extractBusyboxTools = []string{"awk", "cat", "chmod", "chown", "df", "find", "head", "id", "ls", "mkdir", "mktemp", "mv", "rm", "rmdir", "readlink", "sha512sum", "sort", "stat", "tail", "tar", "uniq"}

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

// entry is one member of an archive a test makes: typ a tar.Type*, link
// what a link names, dev a device's major and minor.
type entry struct {
	name, body, link string
	typ              byte
	mode             int64
	dev              [2]int64
}

// archiveOf is a tar.gz holding entries as given, whatever they are.
func archiveOf(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: e.mode, Linkname: e.link, Devmajor: e.dev[0], Devminor: e.dev[1], Format: tar.FormatGNU}
		if e.typ == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func file(name, body string) entry {
	return entry{name: name, body: body, typ: tar.TypeReg, mode: 0o644}
}
func dir(name string, mode int64) entry {
	return entry{name: name, typ: tar.TypeDir, mode: mode}
}
func symlink(name, to string) entry {
	return entry{name: name, link: to, typ: tar.TypeSymlink, mode: 0o777}
}

// nobodyUID is the account the extraction runs as when it isn't root's.
const nobodyUID = 65534

// extractAccounts are the accounts the extract script is run as: root
// (this process's), and, where setpriv is, an account that isn't root
// (uid 65534) in a directory of its own, as a local operator's extraction
// runs. Each comes with dash, bash and BusyBox's ash, its applets in a
// directory that account reaches.
func extractAccounts(t *testing.T) map[string][]userShell {
	t.Helper()
	out := map[string][]userShell{"root": extractShells(t)}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Log("no setpriv here: the extraction as an account that isn't root is not tried")
		return out
	}
	as := []string{setpriv, "--reuid=" + strconv.Itoa(nobodyUID), "--regid=" + strconv.Itoa(nobodyUID), "--clear-groups"}
	for _, sh := range extractShells(t) {
		if sh.name == "busybox" {
			applets := reachable(t)
			for _, tool := range extractBusyboxTools {
				if err := os.Symlink(sh.argv[0], filepath.Join(applets, tool)); err != nil {
					t.Fatal(err)
				}
			}
			sh.path = applets + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
		}
		sh.argv = append(append([]string(nil), as...), sh.argv...)
		out["account"] = append(out["account"], sh)
	}
	return out
}

// homeOf is a new directory the account (root, or nobodyUID) owns, in one
// every account reaches.
func homeOf(t *testing.T, who string) string {
	t.Helper()
	home := filepath.Join(reachable(t), "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if who != "root" {
		if err := os.Chown(home, nobodyUID, nobodyUID); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// onlyFilesDirsLinks fails when anything under dir is not a regular file,
// a directory or a symbolic link, or belongs to root where who isn't.
func onlyFilesDirsLinks(t *testing.T, what, who, dir string) {
	t.Helper()
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			t.Errorf("%s: %v", what, err)
			return nil
		}
		if m := fi.Mode(); !m.IsRegular() && !m.IsDir() && m&os.ModeSymlink == 0 {
			t.Errorf("%s: %s is %v", what, p, m)
		}
		if st := fi.Sys().(*syscall.Stat_t); who != "root" && p != dir && st.Uid == 0 {
			t.Errorf("%s: %s is root's", what, p)
		}
		return nil
	})
}

// TestExtractRefusesWhatIsNotAFileDirectoryOrLinkInTheTree: an archive
// holding a block or character device, a fifo, a symbolic link that is
// absolute, climbs out of the tree by its .., or holds a .. after a name
// (through a link in the tree, c/.. climbs), or a hard link to a file
// outside, is refused (93), as root and as an account that isn't, with
// nothing placed: the tree already there stays as it was, no staging is
// left, and no device or fifo is anywhere.
func TestExtractRefusesWhatIsNotAFileDirectoryOrLinkInTheTree(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: no device node could be made, nor another account's extraction run")
	}
	v1 := ops.Tarball(t, [][2]string{{"a", "one"}}, false, nil)
	bad := map[string]struct {
		e    []entry
		want string
	}{
		"block device":     {[]entry{{name: "top/disk", typ: tar.TypeBlock, mode: 0o666, dev: [2]int64{8, 0}}}, "holds a block device"},
		"char device":      {[]entry{{name: "top/null", typ: tar.TypeChar, mode: 0o666, dev: [2]int64{1, 3}}}, "holds a character device"},
		"fifo":             {[]entry{{name: "top/fifo", typ: tar.TypeFifo, mode: 0o666}}, "holds a fifo"},
		"absolute link":    {[]entry{symlink("top/etc", "/etc")}, "leads out of the tree"},
		"climbing link":    {[]entry{symlink("top/etc", "../../etc")}, "leads out of the tree"},
		".. after a name":  {[]entry{symlink("top/etc", "x/../../etc")}, "leads out of the tree"},
		"through a link":   {[]entry{dir("top/a/", 0o755), symlink("top/a/up", ".."), symlink("top/a/out", "up/..")}, "leads out of the tree"},
		"hard link out":    {[]entry{{name: "top/pw", link: "../../etc/passwd", typ: tar.TypeLink, mode: 0o644}}, ""},
		"fifo after files": {[]entry{file("top/f", "f"), {name: "top/z/fifo", typ: tar.TypeFifo, mode: 0o600}}, "holds a fifo"},
	}
	for who, shells := range extractAccounts(t) {
		for _, sh := range shells {
			for what, c := range bad {
				t.Run(who+"/"+sh.name+"/"+what, func(t *testing.T) {
					home := homeOf(t, who)
					dest := filepath.Join(home, "tree")
					if exit, stderr := extractRun(t, sh, dest, v1, "", "0", "v1"); exit != 0 {
						t.Fatalf("first extraction: exit %d, %s", exit, stderr)
					}
					before := treeOf(t, home)
					archive := archiveOf(t, append([]entry{dir("top/", 0o755), file("top/ok", "ok")}, c.e...)...)
					exit, stderr := extractRun(t, sh, dest, archive, "", "0", "v2")
					if exit != 93 || !strings.Contains(stderr, c.want) {
						t.Errorf("exit %d, %q; want 93, %s", exit, stderr, c.want)
					}
					if got := treeOf(t, home); got != before {
						t.Errorf("the tree changed:\n%s\nwas\n%s", got, before)
					}
					noStaging(t, what, home)
					onlyFilesDirsLinks(t, what, who, home)
				})
			}
		}
	}
}

// TestExtractArchiveModesNeitherBlockNorSetTheTree: an archive whose ./
// is mode 0500, with a directory at mode 0000 and one at 0500 holding
// files, an in-tree link and an in-tree hard link, extracts as root and
// as an account that isn't (in its own directory) without a permission
// failure: each directory is u+rwx, the tree's own mode is what mkdir
// gave it, the hard link is kept, and a second extraction replaces the
// tree whole. (BusyBox's tar, as an account that isn't root, can't write
// into the 0500 directory it makes at the archive's mode: 93, nothing
// placed.) An old tree the account can't remove (a directory of root's in
// it) is left beside the destination, and the failure says the new tree
// is in place, as it is.
func TestExtractArchiveModesNeitherBlockNorSetTheTree(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: another account's extraction can't be run")
	}
	hostile := archiveOf(t, dir("./", 0o500), dir("./top/", 0o755), dir("./top/zero/", 0), dir("./top/zero/sub/", 0o755),
		file("./top/zero/sub/f", "f"), dir("./top/ro/", 0o500), file("./top/ro/g", "g"), symlink("./top/ln", "ro/g"),
		entry{name: "./top/hl", link: "./top/ro/g", typ: tar.TypeLink, mode: 0o644}, dir("./top/zero/", 0))
	again := archiveOf(t, dir("./", 0o500), dir("./b/", 0), file("./b/c", "c"))
	for who, shells := range extractAccounts(t) {
		for _, sh := range shells {
			t.Run(who+"/"+sh.name, func(t *testing.T) {
				home := homeOf(t, who)
				dest := filepath.Join(home, "tree")
				exit, stderr := extractRun(t, sh, dest, hostile, "", "0", "v1")
				if who != "root" && sh.name == "busybox" {
					if exit != 93 || !strings.Contains(stderr, "doesn't extract") {
						t.Errorf("BusyBox's tar as an account: exit %d, %q; want 93, doesn't extract", exit, stderr)
					}
					if _, err := os.Lstat(dest); !os.IsNotExist(err) {
						t.Errorf("BusyBox's tar as an account: %s is there (%v)", dest, err)
					}
					noStaging(t, "BusyBox's tar as an account", home)
					return
				}
				if exit != 0 {
					t.Fatalf("exit %d, %s", exit, stderr)
				}
				want := ". drwxr-xr-x\n.zap_remote_hash -rw-r--r-- \"v1\\n\"\ntop drwxr-xr-x\ntop/hl -rw-r--r-- \"g\"\ntop/ln Lrwxrwxrwx\n" +
					"top/ro drwx------\ntop/ro/g -rw-r--r-- \"g\"\ntop/zero drwx------\ntop/zero/sub drwxr-xr-x\ntop/zero/sub/f -rw-r--r-- \"f\"\n"
				if got := treeOf(t, dest); got != want {
					t.Errorf("tree\n%s\nwant\n%s", got, want)
				}
				var hl, g syscall.Stat_t
				syscall.Lstat(filepath.Join(dest, "top/hl"), &hl)
				syscall.Lstat(filepath.Join(dest, "top/ro/g"), &g)
				if hl.Ino != g.Ino {
					t.Errorf("the in-tree hard link wasn't kept: inodes %d and %d", hl.Ino, g.Ino)
				}
				onlyFilesDirsLinks(t, "first extraction", who, home)
				noStaging(t, "first extraction", home)

				if exit, stderr := extractRun(t, sh, dest, again, "", "0", "v2"); exit != 0 {
					t.Fatalf("replacing: exit %d, %s", exit, stderr)
				}
				want = ". drwxr-xr-x\n.zap_remote_hash -rw-r--r-- \"v2\\n\"\nb drwx------\nb/c -rw-r--r-- \"c\"\n"
				if got := treeOf(t, dest); got != want {
					t.Errorf("replaced: tree\n%s\nwant\n%s", got, want)
				}
				onlyFilesDirsLinks(t, "replacing", who, home)
				noStaging(t, "replacing", home)
				if who == "root" {
					return
				}

				// A directory of root's in the old tree: the account can't
				// remove it, and the failure says so, the new tree in place.
				if err := os.MkdirAll(filepath.Join(dest, "b", "roots", "d"), 0o755); err != nil {
					t.Fatal(err)
				}
				exit, stderr = extractRun(t, sh, dest, hostile, "", "0", "v3")
				if exit != 93 || !strings.Contains(stderr, "the new tree is in place at "+dest+", but the old one can't be removed") {
					t.Errorf("an old tree it can't remove: exit %d, %q; want 93, the new tree is in place", exit, stderr)
				}
				if got := readText(t, filepath.Join(dest, ".zap_remote_hash")); got != "v3\n" {
					t.Errorf("an old tree it can't remove: the sentinel reads %q, want v3: the new tree in place", got)
				}
				left, _ := filepath.Glob(filepath.Join(home, ".tree.zap-*", "old", "b", "roots"))
				if len(left) != 1 {
					t.Errorf("an old tree it can't remove: it isn't left beside the tree (%v)", left)
				}
			})
		}
	}
}

// TestExtractReadOnlyModeByAnAccount: an account that isn't root extracts
// a tree whose declared mode has no u+w (555) into its own directory: the
// tree takes the name and then the mode, and later extractions (555
// again, then none) replace that tree at 555, with no false "changed
// while the tree was swapped in" and no staging left.
func TestExtractReadOnlyModeByAnAccount(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: another account's extraction can't be run")
	}
	s, ok := ops.Script(plan.OpExtract)
	if !ok {
		t.Fatal("no extract script")
	}
	run := func(sh userShell, dest string, archive []byte, prov, mode string) (int, string) {
		args := []string{ops.SHA512Hex(archive), strconv.Itoa(len(archive)), "tar.gz", "0", prov, mode, "", ""}
		return streamExec(t, sh, s.Text, ops.StreamInput(args, bytes.NewReader(archive)), dest)
	}
	v1 := ops.Tarball(t, [][2]string{{"a", "one"}}, false, nil)
	v2 := ops.Tarball(t, [][2]string{{"b", "two"}}, false, nil)
	shells := extractAccounts(t)["account"]
	if len(shells) == 0 {
		t.Skip("no setpriv here: no account that isn't root to extract as")
	}
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			home := homeOf(t, "account")
			dest := filepath.Join(home, "tree")
			if exit, stderr := run(sh, dest, v1, "v1", "555"); exit != 0 {
				t.Fatalf("mode 555: exit %d, %s", exit, stderr)
			}
			want := ". dr-xr-xr-x\n.zap_remote_hash -rw-r--r-- \"v1\\n\"\na -rw-r--r-- \"one\"\n"
			if got := treeOf(t, dest); got != want {
				t.Errorf("mode 555: tree\n%s\nwant\n%s", got, want)
			}
			if exit, stderr := run(sh, dest, v2, "v2", "555"); exit != 0 {
				t.Fatalf("replacing a tree at 555: exit %d, %s", exit, stderr)
			}
			want = ". dr-xr-xr-x\n.zap_remote_hash -rw-r--r-- \"v2\\n\"\nb -rw-r--r-- \"two\"\n"
			if got := treeOf(t, dest); got != want {
				t.Errorf("replacing a tree at 555: tree\n%s\nwant\n%s", got, want)
			}
			// No mode declared, below /tmp (shared): nothing is kept.
			if exit, stderr := run(sh, dest, v1, "v3", ""); exit != 0 {
				t.Fatalf("replacing a tree at 555, no mode: exit %d, %s", exit, stderr)
			}
			want = ". drwxr-xr-x\n.zap_remote_hash -rw-r--r-- \"v3\\n\"\na -rw-r--r-- \"one\"\n"
			if got := treeOf(t, dest); got != want {
				t.Errorf("replacing a tree at 555, no mode: tree\n%s\nwant\n%s", got, want)
			}
			noStaging(t, "mode 555", home)
			onlyFilesDirsLinks(t, "mode 555", "account", home)
		})
	}
}
