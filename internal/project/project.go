// Package project finds the project a Zap config lives in and the packages
// that project links into its node_modules.
//
// The project is the nearest directory at or above the config whose
// package.json holds more than "type" and "sideEffects": a {"type":"module"}
// marker in a subdirectory is passed over. A package.json inside a
// node_modules folder never marks a project. The walk reads the config's
// own directory, then goes up only into directories the user Zap runs as
// owns (run as root, also the user who ran sudo, SUDO_UID) that not every
// user can write, and stops, refusing, below any other or at /. A config,
// or its directory, that every user can write is refused, and so is a
// package.json on the way that can't be read or isn't valid: a FIFO, socket
// or device (refused unopened), a link to nothing, a path through a file,
// not a JSON object, or a "name" or "type" that isn't a string.
//
// The project is what the
// evaluator's sandbox admits, together with the packages its node_modules
// links in from outside it, apart from one reached through a directory every
// user can write: one without the sticky bit, or a sticky one (/tmp) whose
// entry on the way belongs to another user, any link on the way included.
// Such a package isn't admitted, so an import of it doesn't resolve.
package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// Project is a config's project.
type Project struct {
	// Root is the project directory, with every symbolic link resolved.
	Root string
	// Config is the config file, with every symbolic link resolved.
	Config string
	// Packages are the directories, symbolic links resolved, of the packages
	// <Root>/node_modules links in from outside Root, sorted.
	Packages []string
}

// Error is a project that can't be found or isn't acceptable: the config's
// problem, not the evaluator's. Hint says what to do about it.
type Error struct {
	Msg  string
	Hint string
}

func (e *Error) Error() string { return e.Msg }

// Find resolves config and finds its project, walking through the
// directories of Owners.
func Find(config string) (*Project, error) { return FindWith(config, Owners()) }

// FindWith resolves config and finds its project, walking up only through
// directories one of owners owns.
func FindWith(config string, owners []uint32) (*Project, error) {
	abs, err := filepath.Abs(config)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &Error{Msg: fmt.Sprintf("config %s not found", config), Hint: "give the path of a zap.ts, or run zap-eval in its directory"}
	case err != nil:
		return nil, &Error{Msg: fmt.Sprintf("config %s: %v", config, unwrapPath(err))}
	case !fi.Mode().IsRegular():
		return nil, &Error{Msg: fmt.Sprintf("config %s is not a regular file", config)}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("config %s: %v", config, unwrapPath(err))}
	}
	// A config every user can write, or one in a directory every user can
	// write, is anyone's config: fi is the file a link leads to.
	if fi.Mode().Perm()&0o002 != 0 {
		return nil, &Error{
			Msg:  fmt.Sprintf("config %s is writable by every user (mode %04o)", real, fi.Mode().Perm()),
			Hint: fmt.Sprintf("chmod o-w %s", real),
		}
	}
	if di, err := os.Stat(filepath.Dir(real)); err == nil && di.Mode().Perm()&0o002 != 0 {
		return nil, &Error{
			Msg:  fmt.Sprintf("config %s is in %s, which every user can write", config, filepath.Dir(real)),
			Hint: "keep the config in a directory of its own that only you can write",
		}
	}
	root, err := walk(filepath.Dir(real), owners)
	if err != nil {
		return nil, err
	}
	if err := checkHome(root); err != nil {
		return nil, err
	}
	pkgs, err := linked(root)
	if err != nil {
		return nil, err
	}
	return &Project{Root: root, Config: real, Packages: pkgs}, nil
}

// Owners are the users whose directories the walk goes through: the user
// Zap runs as and, run as root, the user who ran sudo (SUDO_UID).
func Owners() []uint32 {
	uid := uint32(os.Geteuid())
	owners := []uint32{uid}
	if uid == 0 {
		if n, err := strconv.ParseUint(os.Getenv("SUDO_UID"), 10, 32); err == nil && n != 0 {
			owners = append(owners, uint32(n))
		}
	}
	return owners
}

// walk goes up from dir to the first directory whose package.json marks a
// project. It reads dir, then goes up only into directories one of owners
// owns that not every user can write, and stops below any other.
func walk(dir string, owners []uint32) (string, error) {
	for d := dir; ; {
		if !inNodeModules(d) {
			found, err := marks(filepath.Join(d, "package.json"))
			if err != nil {
				return "", err
			}
			if found {
				return d, nil
			}
		}
		none := fmt.Sprintf("no project: no package.json at or above %s holds more than \"type\" and \"sideEffects\"", dir)
		hint := "add a package.json with a \"name\" beside the config, such as {\"name\": \"my-config\", \"private\": true}"
		up := filepath.Dir(d)
		if up == d {
			return "", &Error{Msg: none + ", up to /", Hint: hint}
		}
		fi, err := os.Stat(up)
		if err != nil {
			return "", &Error{Msg: fmt.Sprintf("%s: the walk stopped below %s: %v", none, up, unwrapPath(err)), Hint: hint}
		}
		if fi.Mode().Perm()&0o002 != 0 {
			return "", &Error{Msg: fmt.Sprintf("%s: the walk stopped below %s, which every user can write", none, up), Hint: hint}
		}
		if uid := Owner(fi); !slices.Contains(owners, uid) {
			return "", &Error{Msg: fmt.Sprintf("%s: the walk stopped below %s, which %s owns", none, up, userName(uid)), Hint: hint}
		}
		d = up
	}
}

// Owner is the uid that owns what fi describes.
func Owner(fi fs.FileInfo) uint32 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Uid
	}
	return 0
}

// userName names uid: its user name, or the number when it has none.
func userName(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil {
		return u.Username
	}
	return "uid " + id
}

func inNodeModules(dir string) bool {
	for _, c := range strings.Split(dir, string(filepath.Separator)) {
		if c == "node_modules" {
			return true
		}
	}
	return false
}

// marks reports whether the package.json at p marks a project. A missing
// file marks nothing; one that can't be read, or isn't a JSON object with a
// string "name" and "type" when they are there, is an error.
func marks(p string) (bool, error) {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, statErr(p, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		// Follow the link, but refuse one that leads nowhere. Stat opens
		// nothing, so a FIFO or a device at its end is refused unopened.
		fi, err = os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return false, &Error{Msg: fmt.Sprintf("%s is a link to nothing", p)}
		}
		if err != nil {
			return false, statErr(p, err)
		}
	}
	switch t := fi.Mode().Type(); {
	case t&fs.ModeNamedPipe != 0:
		return false, &Error{Msg: fmt.Sprintf("%s is a FIFO, refused unopened", p)}
	case t&fs.ModeSocket != 0:
		return false, &Error{Msg: fmt.Sprintf("%s is a socket, refused unopened", p)}
	case t&fs.ModeDevice != 0:
		return false, &Error{Msg: fmt.Sprintf("%s is a device, refused unopened", p)}
	case !fi.Mode().IsRegular():
		return false, &Error{Msg: fmt.Sprintf("%s is not a regular file", p)}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return false, &Error{Msg: fmt.Sprintf("%s can't be read: %v", p, unwrapPath(err))}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return false, &Error{Msg: fmt.Sprintf("%s is not a JSON object", p)}
	}
	for _, k := range []string{"name", "type"} {
		if raw, ok := obj[k]; ok {
			if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '"' {
				return false, &Error{Msg: fmt.Sprintf("%s: %q is not a string", p, k)}
			}
		}
	}
	for k := range obj {
		if k != "type" && k != "sideEffects" {
			return true, nil
		}
	}
	return false, nil
}

// checkHome refuses a project that is the user's home directory or holds
// it: the sandbox would admit all of it.
func checkHome(root string) error {
	u, err := user.Current()
	if err != nil || u.HomeDir == "" {
		return nil
	}
	home, err := filepath.EvalSymlinks(u.HomeDir)
	if err != nil {
		return nil
	}
	if within(home, root) {
		return &Error{
			Msg:  fmt.Sprintf("project %s is your home directory or holds it", root),
			Hint: "put the config in a directory of its own with a package.json, such as ~/infra",
		}
	}
	return nil
}

// linked lists the real directories of the packages root/node_modules links
// in from outside root.
// A package reached through a directory every user can write isn't read:
// whoever can write it chooses what the link leads to.
func linked(root string) ([]string, error) {
	owners := Owners()
	nm := filepath.Join(root, "node_modules")
	entries, err := os.ReadDir(nm)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("%s: %v", nm, unwrapPath(err))}
	}
	seen := map[string]bool{}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "@") && e.IsDir() {
			sub, err := os.ReadDir(filepath.Join(nm, e.Name()))
			if err != nil {
				continue
			}
			for _, s := range sub {
				names = append(names, filepath.Join(e.Name(), s.Name()))
			}
			continue
		}
		names = append(names, e.Name())
	}
	var out []string
	for _, n := range names {
		real, err := filepath.EvalSymlinks(filepath.Join(nm, n))
		if err != nil {
			continue
		}
		if _, bad := sharedOnWay(filepath.Join(nm, n), owners); bad {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue
		}
		if !within(real, root) && !seen[real] {
			seen[real] = true
			out = append(out, real)
		}
	}
	sort.Strings(out)
	return out, nil
}

// sharedOnWay finds the first directory on the way to the absolute path p,
// its links followed one by one, that every user can write and where
// another user can change where the way leads: one without the sticky bit,
// or a sticky one (/tmp) whose entry on the way belongs to neither an owner
// nor root. What p itself leads to counts too, when every user can write it.
func sharedOnWay(p string, owners []uint32) (string, bool) {
	rest := strings.Split(strings.TrimPrefix(p, "/"), "/")
	cur := "/"
	for links := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		di, err := os.Stat(cur)
		if err != nil {
			return cur, true
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return next, true
		}
		if m := di.Mode(); m.Perm()&0o002 != 0 {
			if m&fs.ModeSticky == 0 {
				return cur, true
			}
			if uid := Owner(fi); uid != 0 && !slices.Contains(owners, uid) {
				return cur, true
			}
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > 40 {
			return next, true
		}
		target, err := os.Readlink(next)
		if err != nil {
			return next, true
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	if fi, err := os.Stat(cur); err != nil || fi.Mode().Perm()&0o002 != 0 {
		return cur, true
	}
	return "", false
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	if dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// Within reports whether the real path p is at or below dir.
func Within(p, dir string) bool { return within(p, dir) }

// statErr is a package.json whose name can't be looked at.
func statErr(p string, err error) error {
	if errors.Is(err, syscall.ENOTDIR) {
		return &Error{Msg: fmt.Sprintf("%s: the path goes through something that isn't a directory", p)}
	}
	return &Error{Msg: fmt.Sprintf("%s can't be read: %v", p, unwrapPath(err))}
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
