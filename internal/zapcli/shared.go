package zapcli

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"slices"
	"strconv"
	"syscall"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/project"
)

// warnShared warns about each of the config and its lock (named as given)
// that an account other than yours can write: a file another user owns
// (root and, run through sudo, the user who ran it are yours), or one its
// group or every user can write. Whoever can write them chooses what Zap
// runs. A group of the owner's own (a user private group: named as the
// owner, its primary group) doesn't count. A file that isn't there, or
// can't be looked at, is left to the command's own error.
func (a *app) warnShared(names ...string) {
	owners := append(project.Owners(), 0)
	for _, name := range names {
		fi, err := os.Stat(name)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if why := sharedWhy(fi, owners); why != "" {
			fmt.Fprintf(a.stderr, "warning: %s %s: whoever can write it chooses what Zap runs\n", escape.Line(name), why)
			fmt.Fprintf(a.stderr, "hint: keep it yours and writable by you alone (chown, then chmod go-w %s)\n", escape.Line(name))
		}
	}
}

// sharedWhy says why the file fi describes is writable by an account other
// than owners, or "".
func sharedWhy(fi fs.FileInfo, owners []uint32) string {
	uid := project.Owner(fi)
	perm := fi.Mode().Perm()
	switch {
	case !slices.Contains(owners, uid):
		return fmt.Sprintf("belongs to %s, another user", userName(uid))
	case perm&0o002 != 0:
		return fmt.Sprintf("is writable by every user (mode %04o)", perm)
	case perm&0o020 != 0 && !privateGroup(fi, uid):
		return fmt.Sprintf("is writable by its group, %s (mode %04o)", groupName(fi), perm)
	}
	return ""
}

// privateGroup reports whether fi's group is its owner uid's private group:
// the owner's primary group, named as the owner.
func privateGroup(fi fs.FileInfo, uid uint32) bool {
	u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10))
	if err != nil {
		return false
	}
	gid := strconv.FormatUint(uint64(fileGID(fi)), 10)
	if u.Gid != gid {
		return false
	}
	g, err := user.LookupGroupId(gid)
	return err == nil && g.Name == u.Username
}

// userName names uid: its user name, or "uid N".
func userName(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil {
		return u.Username
	}
	return "uid " + id
}

// groupName names fi's group: its name, or "gid N".
func groupName(fi fs.FileInfo) string {
	id := strconv.FormatUint(uint64(fileGID(fi)), 10)
	if g, err := user.LookupGroupId(id); err == nil {
		return g.Name
	}
	return "gid " + id
}

// fileGID is the gid that owns what fi describes.
func fileGID(fi fs.FileInfo) uint32 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Gid
	}
	return 0
}
