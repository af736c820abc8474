package ops

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAptListWritesWhatAptSourcePrints: under each shell, apt-list makes
// the list file's missing directory and writes the line as a shell reads
// it with /etc/os-release sourced ($VERSION_CODENAME expanded, quotes
// kept), 644 root:root, byte for byte what the apt-source probe prints; a
// directory at the path fails with 94 and writes nothing.
func TestAptListWritesWhatAptSourcePrints(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: apt-list gives the file to root")
	}
	codename, err := exec.Command("sh", "-c", ". /etc/os-release && printf %s \"$VERSION_CODENAME\"").Output()
	if err != nil || len(codename) == 0 {
		t.Skipf("this machine's /etc/os-release gives no VERSION_CODENAME (%v)", err)
	}
	list, _ := Script("apt-list")
	source, _ := Script("apt-source")
	line := `deb [signed-by=/k.asc] https://r.example/apt "$VERSION_CODENAME" main`
	want := `deb [signed-by=/k.asc] https://r.example/apt "` + string(codename) + `" main` + "\n"
	for _, sh := range svcShells(t) {
		t.Run(sh[0], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sources", "r.list")
			if code, stderr := runScript(t, sh, list.Text, "/usr/bin:/bin", path, line); code != 0 {
				t.Fatalf("apt-list: exit %d: %s", code, stderr)
			}
			if got := read(t, path); got != want {
				t.Errorf("the list holds %q, want %q", got, want)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if st := fi.Sys().(*syscall.Stat_t); fi.Mode() != 0o644 || st.Uid != 0 || st.Gid != 0 {
				t.Errorf("the list is %v %d:%d, want 644 0:0", fi.Mode(), st.Uid, st.Gid)
			}
			cmd := exec.Command(sh[0], append(append(sh[1:], "-s", "--"), line)...)
			cmd.Stdin = strings.NewReader(source.Text)
			cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin"}
			out, err := cmd.Output()
			if err != nil || string(out) != want {
				t.Errorf("apt-source printed %q (%v), want %q", out, err, want)
			}
			dir := filepath.Join(t.TempDir(), "d.list")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if code, stderr := runScript(t, sh, list.Text, "/usr/bin:/bin", dir, line); code != 94 || !strings.Contains(stderr, "is a directory") {
				t.Errorf("a directory at the path: exit %d: %s", code, stderr)
			}
			if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
				t.Errorf("%d names beside the directory, want it alone", len(entries))
			}
		})
	}
}
