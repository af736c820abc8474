package zapeval

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOutOfMemory holds the memory limit's verdict to the reports the Go
// runtime writes when a hard limit refuses it memory, and to no other.
func TestOutOfMemory(t *testing.T) {
	for _, c := range []struct {
		report string
		oom    bool
	}{
		{"runtime: out of memory: cannot allocate 3221225472-byte block (8126464 in use)\nfatal error: out of memory\n\ngoroutine 1 gp=0x1 m=0 [running]:\n", true},
		{"fatal error: runtime: cannot allocate memory\n\nruntime stack:\nruntime.throw(...)\n", true},
		{"fatal error: runtime: out of memory\n", true},
		{"runtime: failed to create new OS thread (have 7 already; errno=12)\nfatal error: newosproc\n", true},
		{"", false},
		{"panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\n", false},
		{"fatal error: concurrent map writes\n", false},
		{"runtime: failed to create new OS thread (have 7 already; errno=11)\nfatal error: newosproc\n", false},
		{"panic: the config said: fatal error: out of memory\n", false},
	} {
		if got := outOfMemory([]byte(c.report)); got != c.oom {
			t.Errorf("outOfMemory(%q) = %v, want %v", c.report, got, c.oom)
		}
	}
}

// TestCgroupBase checks where an evaluation's memory cgroup is made: beside
// zap-eval's own cgroup, when the parent hands the memory controller down.
func TestCgroupBase(t *testing.T) {
	root := t.TempDir()
	write := func(dir, controllers string) {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, "cgroup.subtree_control"), []byte(controllers+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("", "cpu io memory pids")
	write("user.slice/user-1000.slice", "cpu memory pids")
	write("system.slice", "pids")
	for _, c := range []struct {
		self string
		base string
		ok   bool
	}{
		{"0::/user.slice/user-1000.slice/session-3.scope\n", "user.slice/user-1000.slice", true},
		{"0::/\n", "", true},
		{"0::/system.slice/cron.service\n", "", false},
		{"12:memory:/user.slice\n1:name=systemd:/user.slice\n", "", false},
		{"1:name=systemd:/x\n0::/user.slice/user-1000.slice/app.scope\n", "user.slice/user-1000.slice", true},
		{"0::/user.slice/gone.scope (deleted)\n", "", false},
	} {
		base, ok := cgroupBase(root, []byte(c.self))
		want := filepath.Join(root, c.base)
		if ok != c.ok || (ok && base != want) {
			t.Errorf("cgroupBase(%q) = %q, %v; want %q, %v", c.self, base, ok, want, c.ok)
		}
	}
}

func TestOwners(t *testing.T) {
	for _, owners := range [][]uint32{{0}, {1000}, {0, 1000}} {
		got, err := parseOwners(formatOwners(owners))
		if err != nil || !slices.Equal(got, owners) {
			t.Errorf("%v came back as %v, %v", owners, got, err)
		}
	}
	for _, bad := range []string{"", "x", "1,", "-1", "4294967296"} {
		if _, err := parseOwners(bad); err == nil {
			t.Errorf("parseOwners(%q) took it", bad)
		}
	}
}

// TestCapped keeps what fits and says when more came.
func TestCapped(t *testing.T) {
	c := capped{max: 10}
	c.readFrom(strings.NewReader("0123456789"))
	if string(c.bytes()) != "0123456789" || c.over {
		t.Errorf("at the cap: %q over=%v", c.bytes(), c.over)
	}
	c = capped{max: 10}
	c.readFrom(strings.NewReader(strings.Repeat("x", 100000)))
	if len(c.bytes()) != 10 || !c.over || c.n != 100000 {
		t.Errorf("past the cap: %d kept, over=%v, %d read", len(c.bytes()), c.over, c.n)
	}
}
