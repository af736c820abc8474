package envfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Access is what a group or everyone may do with the file.
type Access string

// The accesses Permissions warns about.
const (
	Writable Access = "writable"
	Readable Access = "readable"
)

// Warning is one permission problem of an env file.
type Warning struct {
	File    string
	Access  Access
	Group   bool     // the file's group has the access
	Others  bool     // everyone has the access
	Secrets []string // for Readable: the secret variables, in file order
}

func (w Warning) String() string {
	who := "its group"
	switch {
	case w.Group && w.Others:
		who = "its group and everyone"
	case w.Others:
		who = "everyone"
	}
	if w.Access == Writable {
		return fmt.Sprintf("env file %s can be written by %s: whoever can rewrite it chooses the host a deploy goes to", w.File, who)
	}
	return fmt.Sprintf("env file %s can be read by %s and holds a secret (%s)", w.File, who, strings.Join(w.Secrets, ", "))
}

// Hint is the fix for every warning.
func (w Warning) Hint() string { return "chmod 600 " + w.File }

// Permissions returns the warnings for the env file called name with the mode
// fi reports and the variables Parse read from it: one when its group or
// everyone can write it, and one when they can read it while isSecret says a
// variable is a secret (by its name or the form of its value).
func Permissions(name string, fi fs.FileInfo, vars []Var, isSecret func(name, value string) bool) []Warning {
	perm := fi.Mode().Perm()
	var ws []Warning
	if perm&0o022 != 0 {
		ws = append(ws, Warning{File: name, Access: Writable, Group: perm&0o020 != 0, Others: perm&0o002 != 0})
	}
	if perm&0o044 != 0 && isSecret != nil {
		var secrets []string
		for _, v := range vars {
			if isSecret(v.Name, v.Value) {
				secrets = append(secrets, v.Name)
			}
		}
		if len(secrets) > 0 {
			ws = append(ws, Warning{File: name, Access: Readable, Group: perm&0o040 != 0, Others: perm&0o004 != 0, Secrets: secrets})
		}
	}
	return ws
}

// Load opens the env file at path, parses it, and checks the permissions of
// the file it read (through the open descriptor, so both describe one file).
func Load(path string, isSecret func(name, value string) bool) ([]Var, []Warning, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read env file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("read env file: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read env file: %w", err)
	}
	if len(data) > MaxSize {
		return nil, nil, fmt.Errorf("env file %s is larger than %d MiB, the most an env file may hold", path, MaxSize>>20)
	}
	vars, err := Parse(path, data)
	if err != nil {
		return nil, nil, err
	}
	return vars, Permissions(path, fi, vars, isSecret), nil
}
