package ops_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zap-go/zap/internal/kinds/swap"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/plan"
)

// swapBusyboxTools are the commands the swap scripts use that BusyBox has
// as applets (Alpine's are BusyBox's); getfacl stays the machine's own.
var swapBusyboxTools = []string{"awk", "cat", "chmod", "chown", "dd", "fallocate", "ls", "mkswap", "mktemp", "mv", "rm", "stat", "swapon", "tail"}

// swapShells are dash, bash and BusyBox's ash with its applets first on
// PATH, each that is installed.
func swapShells(t *testing.T) []userShell {
	return opShells(t, "swap", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", swapBusyboxTools)
}

// swapDir is a fresh directory for swap files, as the path check wants it:
// root's, mode 700, under /var/lib (root's and writable by no one else,
// unlike /tmp and /var/tmp). At the end every swap still active in it is
// turned off and it is removed.
func swapDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the swap scripts run as root (chown 0:0, mkswap, swapon): run the test as root")
	}
	for _, d := range []string{"/", "/var", "/var/lib"} {
		var st syscall.Stat_t
		if err := syscall.Stat(d, &st); err != nil || st.Uid != 0 || st.Mode&0o022 != 0 {
			t.Skipf("%s isn't root's and writable by no one else here, so no swap file under it passes the path check", d)
		}
	}
	dir, err := os.MkdirTemp("/var/lib", "zap-swaptest.")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { swapOffUnder(t, dir); os.RemoveAll(dir) })
	return dir
}

// swapOffUnder turns off each active swap under dir.
func swapOffUnder(t *testing.T, dir string) {
	b, err := os.ReadFile("/proc/swaps")
	if err != nil {
		return
	}
	names, _ := swap.SwapNames(string(b))
	for _, n := range names {
		if strings.HasPrefix(n, dir+"/") {
			if out, err := exec.Command("swapoff", n).CombinedOutput(); err != nil {
				t.Errorf("swapoff %s: %v: %s", n, err, out)
			}
		}
	}
}

// isActive reports whether /proc/swaps lists path.
func isActive(t *testing.T, path string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/swaps")
	if err != nil {
		t.Fatal(err)
	}
	names, ok := swap.SwapNames(string(b))
	if !ok {
		t.Fatalf("/proc/swaps doesn't parse: %q", b)
	}
	for _, n := range names {
		if n == path {
			return true
		}
	}
	return false
}

// swapOnWorks makes a scratch swap file in dir and turns it on and off:
// "" when this machine allows that, else why not.
func swapOnWorks(dir string) string {
	f := filepath.Join(dir, "scratch")
	defer os.Remove(f)
	for _, argv := range [][]string{
		{"dd", "if=/dev/zero", "of=" + f, "bs=1024", "count=1024"},
		{"chmod", "600", f},
		{"mkswap", f},
		{"swapon", f},
		{"swapoff", f},
	} {
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			return fmt.Sprintf("%s on a scratch file failed: %v: %s", argv[0], err, bytes.TrimSpace(out))
		}
	}
	return ""
}

// TestSwapPathRefusals: before a file is made or enabled, a symbolic link
// at the path, and a directory on the way, as named or as it resolves,
// that isn't root's or that its group or others can write, is refused
// (exit 94) naming the path, the directory and the reason; nothing is made
// and what was there is left as it was.
func TestSwapPathRefusals(t *testing.T) {
	dir := swapDir(t)
	tmp := t.TempDir() // under /tmp, which every account may write
	keep := filepath.Join(dir, "keep")
	if err := os.WriteFile(keep, []byte("not a swap\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mk := func(p string, mode os.FileMode) string {
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gw := mk(filepath.Join(dir, "gw"), 0o775)
	ow := mk(filepath.Join(dir, "ow"), 0o757)
	nobody := mk(filepath.Join(dir, "nobody"), 0o755)
	if err := os.Chown(nobody, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tmp, filepath.Join(dir, "totmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(keep, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	mk(filepath.Join(dir, "adir"), 0o700)
	cases := []struct {
		name, path, want string
		made             string // a path that must still not exist
	}{
		{"a symlink at the path", filepath.Join(dir, "link"), "refused " + dir + "/link: it is a symbolic link, and mkswap would format whatever it points at", ""},
		{"a group-writable directory", gw + "/swap", "refused " + gw + "/swap: the directory " + gw + " can be written by its group or others (mode 775)", gw + "/swap"},
		{"an other-writable directory", ow + "/swap", "the directory " + ow + " can be written by its group or others (mode 757)", ow + "/swap"},
		{"a directory not root's", nobody + "/swap", "the directory " + nobody + " is owned by uid 65534, not root", nobody + "/swap"},
		{"/tmp, as the path resolves", dir + "/totmp/swap", "the directory /tmp can be written by its group or others (mode 1777)", tmp + "/swap"},
		{"/tmp, as named", tmp + "/swap", "refused " + tmp + "/swap: the directory /tmp can be written", tmp + "/swap"},
		{"a missing directory", dir + "/none/swap", "its directory " + dir + "/none is missing", dir + "/none"},
		{"a directory at the path", dir + "/adir", "refused " + dir + "/adir: it is in the way: not a regular file", ""},
	}
	for _, sh := range swapShells(t) {
		for _, op := range []struct {
			name plan.OpName
			args []string
		}{{"swap-make", []string{"4M"}}, {"swap-on", nil}} {
			for _, c := range cases {
				t.Run(sh.name+"/"+string(op.name)+"/"+c.name, func(t *testing.T) {
					code, stderr := userRun(t, sh, op.name, append([]string{c.path}, op.args...)...)
					if code != 94 || !strings.Contains(stderr, "zap "+string(op.name)+": ") || !strings.Contains(stderr, c.want) {
						t.Errorf("exit %d, stderr %q: want 94 and %q", code, stderr, c.want)
					}
					if c.made != "" {
						if _, err := os.Lstat(c.made); err == nil {
							t.Errorf("%s was made", c.made)
						}
					}
					if b, err := os.ReadFile(keep); err != nil || string(b) != "not a swap\n" {
						t.Errorf("the link's target changed: %q %v", b, err)
					}
					if fi, err := os.Lstat(filepath.Join(dir, "link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
						t.Errorf("the link at the path changed: %v %v", fi, err)
					}
				})
			}
		}
		// Arguments that aren't a path or a size exit 93.
		for _, args := range [][]string{{"rel/swap", "4M"}, {dir + "/../x", "4M"}, {dir + "/sw/", "4M"}, {dir + "/s", "4X"}, {dir + "/s", "0"}, {dir + "/s", "-1M"}, {dir + "/s", "99999999999999999T"}, {dir + "/s"}} {
			code, stderr := userRun(t, sh, "swap-make", args...)
			if code != 93 {
				t.Errorf("%s: swap-make %q: exit %d (%s), want 93", sh.name, args, code, stderr)
			}
			if _, err := os.Lstat(dir + "/s"); err == nil {
				t.Errorf("%s: swap-make %q made %s/s", sh.name, args, dir)
			}
		}
	}
}

// TestSwapMakeOn makes, formats and enables real swap files: a new one and
// a short one a full disk left behind (made whole, root's, 600); an
// active one is left as it is by swap-on and refused by swap-make; a file
// others can read isn't enabled.
func TestSwapMakeOn(t *testing.T) {
	dir := swapDir(t)
	works := swapOnWorks(dir)
	for _, sh := range swapShells(t) {
		t.Run(sh.name, func(t *testing.T) {
			sw := filepath.Join(dir, "swap-"+sh.name)
			short := filepath.Join(dir, "short-"+sh.name)
			if err := os.WriteFile(short, make([]byte, 1<<20), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(short, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{sw, short} {
				if code, stderr := userRun(t, sh, "swap-make", p, "4M"); code != 0 {
					t.Fatalf("swap-make %s: exit %d: %s", p, code, stderr)
				}
				var st syscall.Stat_t
				if err := syscall.Stat(p, &st); err != nil {
					t.Fatal(err)
				}
				if st.Mode&0o7777 != 0o600 || st.Uid != 0 || st.Gid != 0 || st.Size != 4<<20 {
					t.Errorf("%s: mode %o, %d:%d, %d bytes: want 600 0:0 %d", p, st.Mode&0o7777, st.Uid, st.Gid, st.Size, 4<<20)
				}
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Contains(b[:65536], []byte("SWAPSPACE2")) {
					t.Errorf("%s: no swap signature", p)
				}
			}
			if works != "" {
				t.Skipf("swap-on isn't tried: this machine refuses swapon: %s", works)
			}
			if code, stderr := userRun(t, sh, "swap-on", sw); code != 0 || !isActive(t, sw) {
				t.Fatalf("swap-on %s: exit %d, active %v: %s", sw, code, isActive(t, sw), stderr)
			}
			if code, stderr := userRun(t, sh, "swap-on", sw); code != 0 {
				t.Errorf("swap-on of an active swap: exit %d: %s", code, stderr)
			}
			code, stderr := userRun(t, sh, "swap-make", sw, "8M")
			if code != 94 || !strings.Contains(stderr, "refused "+sw+": it is an active swap") {
				t.Errorf("swap-make of an active swap: exit %d, %q", code, stderr)
			}
			if fi, err := os.Stat(sw); err != nil || fi.Size() != 4<<20 || !isActive(t, sw) {
				t.Errorf("the active swap changed: %v %v", fi, err)
			}
			if err := os.Chmod(short, 0o644); err != nil {
				t.Fatal(err)
			}
			code, stderr = userRun(t, sh, "swap-on", short)
			if code != 94 || !strings.Contains(stderr, "refused "+short+": its group or others have access to it (mode 644): chmod 600 it") || isActive(t, short) {
				t.Errorf("swap-on of a 644 file: exit %d, %q", code, stderr)
			}
			swapOffUnder(t, dir)
		})
	}
}

// fstabRun runs swap-fstab PATH in a private mount namespace where /etc is
// an overlay whose upper directory is upper (so the machine's own
// /etc/fstab is never touched): what the script writes is in upper.
func fstabRun(t *testing.T, sh userShell, upper, path string) (int, string) {
	return etcOverlayRun(t, sh, "swap-fstab", sh.path, upper, path)
}

// etcOverlayRun runs the operation name with args, under sh with PATH path,
// in a private mount namespace where /etc is an overlay whose upper
// directory is upper: what the script writes under /etc lands in upper,
// and the machine's own /etc is never touched. It returns the exit status
// and stderr.
func etcOverlayRun(t *testing.T, sh userShell, name, path, upper string, args ...string) (int, string) {
	t.Helper()
	work := upper + ".work"
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	s, ok := ops.Script(plan.OpName(name))
	if !ok {
		t.Fatalf("no %s script", name)
	}
	wrap := "mount --make-rprivate / && mount -t overlay overlay -o lowerdir=/etc,upperdir=\"$1\",workdir=\"$2\" /etc && shift 2 && exec \"$@\""
	argv := append([]string{"-m", "sh", "-c", wrap, "sh", upper, work}, sh.argv...)
	cmd := exec.Command("unshare", append(append(argv, "-s", "--"), args...)...)
	cmd.Stdin = strings.NewReader(s.Text)
	cmd.Env = []string{"LC_ALL=C", "PATH=" + path}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// fstabNeeds skips unless an overlay can be mounted over /etc in a private
// mount namespace here.
func fstabNeeds(t *testing.T, base string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("swap-fstab rewrites /etc/fstab as root: it is tested as root, in a private mount namespace")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare (util-linux) for a private mount namespace")
	}
	up, work := filepath.Join(base, "probe"), filepath.Join(base, "probe.work")
	os.MkdirAll(up, 0o755)
	os.MkdirAll(work, 0o700)
	out, err := exec.Command("unshare", "-m", "sh", "-c", "mount --make-rprivate / && mount -t overlay overlay -o lowerdir=/etc,upperdir=\"$1\",workdir=\"$2\" /etc", "sh", up, work).CombinedOutput()
	if err != nil {
		t.Skipf("an overlay can't be mounted over /etc in a private mount namespace here, so /etc/fstab can't be stood in for: %v: %s", err, bytes.TrimSpace(out))
	}
}

// TestSwapFstab: the entry is added to the table as it reads, which is
// installed whole by rename keeping its mode, root's; an entry already
// there isn't added again; a table with an access list, or one that can't
// be read, fails with nothing written.
func TestSwapFstab(t *testing.T) {
	base, err := os.MkdirTemp("/var/tmp", "zap-fstabtest.")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	fstabNeeds(t, base)
	haveSetfacl := true
	if _, err := exec.LookPath("setfacl"); err != nil {
		haveSetfacl = false
		t.Logf("setfacl is not installed (apt-get install acl): a table with an access list isn't tried")
	}
	const table = "# static file system information\nUUID=abcd / ext4 errors=remount-ro 0 1"
	n := 0
	for _, sh := range swapShells(t) {
		// upper makes a fresh overlay upper directory whose fstab is text
		// (mode, owner), and returns it.
		upper := func(text string, mode os.FileMode, uid int) string {
			n++
			u := filepath.Join(base, fmt.Sprintf("up%d", n))
			if err := os.MkdirAll(u, 0o755); err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(u, "fstab")
			if err := os.WriteFile(f, []byte(text), mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(f, mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(f, uid, uid); err != nil {
				t.Fatal(err)
			}
			return u
		}
		entries := func(u string) []string {
			es, _ := os.ReadDir(u)
			var names []string
			for _, e := range es {
				names = append(names, e.Name())
			}
			return names
		}
		t.Run(sh.name+"/added", func(t *testing.T) {
			u := upper(table, 0o640, 65534)
			if code, stderr := fstabRun(t, sh, u, "/var/swap/file"); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			b, _ := os.ReadFile(filepath.Join(u, "fstab"))
			if want := table + "\n/var/swap/file none swap sw 0 0\n"; string(b) != want {
				t.Errorf("fstab %q, want %q", b, want)
			}
			var st syscall.Stat_t
			syscall.Stat(filepath.Join(u, "fstab"), &st)
			if st.Mode&0o7777 != 0o640 || st.Uid != 0 || st.Gid != 0 {
				t.Errorf("fstab mode %o %d:%d, want 640 0:0", st.Mode&0o7777, st.Uid, st.Gid)
			}
			if got := entries(u); len(got) != 1 {
				t.Errorf("left behind: %v", got)
			}
			// Again: the entry is there, and the table isn't rewritten.
			var before syscall.Stat_t
			syscall.Stat(filepath.Join(u, "fstab"), &before)
			if code, stderr := fstabRun(t, sh, u, "/var/swap/file"); code != 0 {
				t.Fatalf("again: exit %d: %s", code, stderr)
			}
			var after syscall.Stat_t
			syscall.Stat(filepath.Join(u, "fstab"), &after)
			if after.Ino != before.Ino {
				t.Errorf("a table that lists the swap was rewritten")
			}
		})
		t.Run(sh.name+"/a backslash", func(t *testing.T) {
			u := upper(table+"\n", 0o644, 0)
			if code, stderr := fstabRun(t, sh, u, `/srv/a\b`); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			b, _ := os.ReadFile(filepath.Join(u, "fstab"))
			if want := table + "\n" + `/srv/a\134b none swap sw 0 0` + "\n"; string(b) != want {
				t.Errorf("fstab %q, want %q", b, want)
			}
			if !swap.FstabListsSwap(string(b), `/srv/a\b`) {
				t.Errorf("detection doesn't read the entry it wrote")
			}
		})
		t.Run(sh.name+"/a symlinked table", func(t *testing.T) {
			u := upper(table+"\n", 0o600, 0)
			if err := os.Rename(filepath.Join(u, "fstab"), filepath.Join(u, "fstab.real")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("fstab.real", filepath.Join(u, "fstab")); err != nil {
				t.Fatal(err)
			}
			if code, stderr := fstabRun(t, sh, u, "/swapfile"); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			fi, err := os.Lstat(filepath.Join(u, "fstab"))
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
				t.Errorf("fstab is %v %v, want a regular file, 600", fi, err)
			}
			if b, _ := os.ReadFile(filepath.Join(u, "fstab.real")); string(b) != table+"\n" {
				t.Errorf("the link's target changed: %q", b)
			}
		})
		t.Run(sh.name+"/an access list", func(t *testing.T) {
			if !haveSetfacl {
				t.Skip("needs setfacl (apt-get install acl)")
			}
			u := upper(table+"\n", 0o644, 0)
			if out, err := exec.Command("setfacl", "-m", "u:65534:rw", filepath.Join(u, "fstab")).CombinedOutput(); err != nil {
				t.Skipf("setfacl on %s failed, so a table with an access list can't be tried: %v: %s", u, err, out)
			}
			code, stderr := fstabRun(t, sh, u, "/swapfile")
			if code != 93 || !strings.Contains(stderr, "/etc/fstab has an access list") || !strings.Contains(stderr, "setfacl -b /etc/fstab") {
				t.Errorf("exit %d, %q: want 93 and the access list named", code, stderr)
			}
			if b, _ := os.ReadFile(filepath.Join(u, "fstab")); string(b) != table+"\n" {
				t.Errorf("the table changed: %q", b)
			}
			if got := entries(u); len(got) != 1 {
				t.Errorf("left behind: %v", got)
			}
		})
		t.Run(sh.name+"/an access list, no getfacl", func(t *testing.T) {
			// Where getfacl isn't installed (Alpine without acl), ls -l's
			// + says there is a list: GNU ls's, which BusyBox's ls lacks, so
			// BusyBox's ash is given the PATH's GNU ls here, as each shell is.
			if !haveSetfacl {
				t.Skip("needs setfacl (apt-get install acl)")
			}
			bin := t.TempDir()
			for _, tool := range []string{sh.argv[0], "sh", "mount", "awk", "cat", "chmod", "chown", "ls", "mktemp", "mv", "rm", "stat", "tail"} {
				p, err := exec.LookPath(tool)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(p, filepath.Join(bin, filepath.Base(tool))); err != nil {
					t.Fatal(err)
				}
			}
			u := upper(table+"\n", 0o644, 0)
			if out, err := exec.Command("setfacl", "-m", "u:65534:rw", filepath.Join(u, "fstab")).CombinedOutput(); err != nil {
				t.Skipf("setfacl on %s failed, so a table with an access list can't be tried: %v: %s", u, err, out)
			}
			nofacl := sh
			nofacl.path = bin
			code, stderr := fstabRun(t, nofacl, u, "/swapfile")
			if code != 93 || !strings.Contains(stderr, "/etc/fstab has an access list") {
				t.Errorf("exit %d, %q: want 93 and the access list named", code, stderr)
			}
			if b, _ := os.ReadFile(filepath.Join(u, "fstab")); string(b) != table+"\n" {
				t.Errorf("the table changed: %q", b)
			}
		})
		t.Run(sh.name+"/a dangling link", func(t *testing.T) {
			u := upper(table, 0o644, 0)
			os.Remove(filepath.Join(u, "fstab"))
			if err := os.Symlink("nowhere", filepath.Join(u, "fstab")); err != nil {
				t.Fatal(err)
			}
			code, stderr := fstabRun(t, sh, u, "/swapfile")
			if code != 93 || !strings.Contains(stderr, "/etc/fstab is a symbolic link that leads nowhere") {
				t.Errorf("exit %d, %q", code, stderr)
			}
			if fi, err := os.Lstat(filepath.Join(u, "fstab")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link was replaced")
			}
		})
	}
}
