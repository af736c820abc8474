package zapeval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/project"
)

func TestDropTarget(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: giving the project to another user needs root")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "proj")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(root, 4321, 4321); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755)
	proj := &project.Project{Root: root}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	lookup := func(home string, gid uint32) passwd {
		return func(uid uint32) (account, error) {
			return account{Uid: uid, Gid: gid, Name: "alice", Home: home}, nil
		}
	}
	for _, c := range []struct {
		name   string
		env    map[string]string
		lookup passwd
		gid    uint32
		err    string
	}{
		{"owner", nil, lookup("/home/alice", 50), 50, ""},
		{"sudo by the owner", map[string]string{"SUDO_UID": "4321", "SUDO_GID": "77"}, lookup("/home/alice", 50), 77, ""},
		{"sudo by another", map[string]string{"SUDO_UID": "1", "SUDO_GID": "77"}, lookup("/home/alice", 50), 50, ""},
		{"group 0", nil, lookup("/home/alice", 0), 0, "in group 0"},
		{"home is the project", nil, lookup(root, 50), 0, "is the home directory of alice"},
		{"project holds home", nil, lookup(filepath.Join(root, "home"), 50), 0, "is the home directory of alice"},
		{"no passwd entry", nil, func(uint32) (account, error) { return account{}, errors.New("unknown") }, 0, "has no passwd entry"},
	} {
		if c.name == "project holds home" {
			os.Mkdir(filepath.Join(root, "home"), 0o755)
		}
		acct, err := dropTarget(proj, env(c.env), c.lookup)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err == "" && (acct.Uid != 4321 || acct.Gid != c.gid):
			t.Errorf("%s: drop to %d:%d, want 4321:%d", c.name, acct.Uid, acct.Gid, c.gid)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: err = %v, want %q", c.name, err, c.err)
		}
	}
}
