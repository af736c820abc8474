package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The restricted checks run in a child process: Landlock can't be lifted
// from the process that applied it.
const childEnv = "ZAP_SANDBOX_TEST_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(child(dir))
	}
	os.Exit(m.Run())
}

// child restricts itself to dir/proj and reports, one line each, what it
// could do.
func child(dir string) int {
	proj := filepath.Join(dir, "proj")
	if err := Restrict(proj, filepath.Join(dir, "linked")); err != nil {
		fmt.Println("restrict:", err)
		return 1
	}
	try := func(what string, err error) {
		switch {
		case err == nil:
			fmt.Println(what, "ok")
		case errors.Is(err, fs.ErrPermission):
			fmt.Println(what, "denied")
		default:
			fmt.Println(what, "error:", err)
		}
	}
	read := func(p string) error { _, err := os.ReadFile(p); return err }
	try("read inside", read(filepath.Join(proj, "zap.ts")))
	try("read linked", read(filepath.Join(proj, "node_modules/pkg/index.ts")))
	try("read outside", read(filepath.Join(dir, "outside/secret.ts")))
	try("read outside through a link", read(filepath.Join(proj, "link.ts")))
	try("list above", func() error { _, err := os.ReadDir(dir); return err }())
	try("read /etc/passwd", read("/etc/passwd"))
	try("write inside", os.WriteFile(filepath.Join(proj, "new.ts"), nil, 0o644))
	_, err := os.Stat(filepath.Join(dir, "outside/secret.ts"))
	try("stat outside", err)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err == nil {
		conn, cerr := net.Dial("tcp", l.Addr().String())
		if cerr == nil {
			conn.Close()
		}
		l.Close()
		err = cerr
	} else {
		err = fmt.Errorf("listen: %w", err)
	}
	if errors.Is(err, syscall.EACCES) {
		err = fs.ErrPermission
	}
	try("tcp connect", err)
	return 0
}

func TestRestrict(t *testing.T) {
	if abi := ABI(); abi < 4 {
		t.Skipf("this kernel's Landlock ABI is %d; the sandbox test needs 4 or later", abi)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"proj/zap.ts":       "export default () => {};",
		"outside/secret.ts": "export const secret = 1;",
		"linked/index.ts":   "export const l = 1;",
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "proj/node_modules"), 0o755)
	for link, target := range map[string]string{
		"proj/link.ts":          filepath.Join(dir, "outside/secret.ts"),
		"proj/node_modules/pkg": filepath.Join(dir, "linked"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	want := strings.Join([]string{
		"read inside ok",
		"read linked ok",
		"read outside denied",
		"read outside through a link denied",
		"list above denied",
		"read /etc/passwd denied",
		"write inside denied",
		"stat outside ok",
		"tcp connect denied",
	}, "\n") + "\n"
	if string(out) != want {
		t.Fatalf("in the sandbox:\n%s\nwant:\n%s", out, want)
	}
}

// TestRestrictEvictedDentries restricts child after child while the
// kernel's dentry cache is being dropped (as memory pressure drops it): a
// cgo build (this test binary, under -race) reaches every thread through
// libpsx, which dies with "failed to read /proc/PID/task - aborting" when
// Landlock denies it that directory (pin_cgo.go). Every child must come up
// restricted.
func TestRestrictEvictedDentries(t *testing.T) {
	if abi := ABI(); abi < 4 {
		t.Skipf("this kernel's Landlock ABI is %d; the sandbox test needs 4 or later", abi)
	}
	const dropCaches = "/proc/sys/vm/drop_caches"
	if f, err := os.OpenFile(dropCaches, os.O_WRONLY, 0); err != nil {
		t.Skipf("can't drop the dentry cache to provoke the eviction (%v): needs root", err)
	} else {
		f.Close()
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "proj/zap.ts"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	dropped := make(chan struct{})
	go func() {
		defer close(dropped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			// 2: dentries and inodes, not the page cache.
			os.WriteFile(dropCaches, []byte("2"), 0)
		}
	}()
	defer func() { close(stop); <-dropped }()
	for i := range 10 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "read inside ok\n") {
			t.Fatalf("child %d: %v\n%s", i, err, out)
		}
	}
}
