// Package project finds the project a Zap config lives in and the packages
// that project links into its node_modules.
//
// The project is the nearest directory at or above the config whose
// package.json holds more than "type" and "sideEffects": a {"type":"module"}
// marker in a subdirectory is passed over. A package.json inside a
// node_modules folder never marks a project. The project is what the
// evaluator's sandbox admits, together with the packages its node_modules
// links in from outside it.
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
	"sort"
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

// Find resolves config and finds its project.
func Find(config string) (*Project, error) {
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
	root, err := walk(filepath.Dir(real))
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

// walk goes up from dir to the first directory whose package.json marks a
// project.
func walk(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if !inNodeModules(d) {
			found, err := marks(filepath.Join(d, "package.json"))
			if err != nil {
				return "", err
			}
			if found {
				return d, nil
			}
		}
		if d == filepath.Dir(d) {
			return "", &Error{
				Msg:  fmt.Sprintf("no project: no package.json at or above %s holds more than \"type\" and \"sideEffects\"", dir),
				Hint: "add a package.json with a \"name\" beside the config, such as {\"name\": \"my-config\", \"private\": true}",
			}
		}
	}
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
		return false, &Error{Msg: fmt.Sprintf("%s: %v", p, unwrapPath(err))}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		// Follow the link, but refuse one that leads nowhere.
		fi, err = os.Stat(p)
		if err != nil {
			return false, &Error{Msg: fmt.Sprintf("%s is a link to nothing", p)}
		}
	}
	if !fi.Mode().IsRegular() {
		return false, &Error{Msg: fmt.Sprintf("%s is not a regular file", p)}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return false, &Error{Msg: fmt.Sprintf("%s: %v", p, unwrapPath(err))}
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
func linked(root string) ([]string, error) {
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

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
