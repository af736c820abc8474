// Package envpass carries the env-file variables too long for a child's
// environment to Zap's stages on a descriptor instead.
//
// Linux refuses to start a process when any one environment string is
// longer than MAX_ARG_STRLEN (128 KiB), or when all its arguments and
// environment together pass a quarter of the stack limit (2 MiB at the
// usual 8 MiB; never under 128 KiB), whatever the program: an env file
// holding a certificate chain, or a great many values, would make every
// stage fail to start. So Split decides: an env-file variable whose
// NAME=VALUE is longer than Threshold, and every one past Budget bytes of
// them all, never goes into a child's environment. The front end writes
// those variables to a sealed memfd (NewFile), hands it to each stage that
// resolves references (Attach: one more ExtraFiles descriptor, and
// ZAP_ENV_FD naming its number in the child), and the stage reads it once
// at its start (Load), resolving through Env.Lookup: the descriptor's
// values first, then its own environment.
//
// The processes a stage starts (sudo, sh, ssh) get its environment only,
// without these values; they couldn't be started with them anyway.
//
// The descriptor holds the format line "zap.env/1" and then each variable
// as NAME=VALUE, every one ended by a NUL, names in byte order: the form
// of /proc/PID/environ, since neither a name nor an env-file value can
// hold a NUL. A reader takes at most MaxSize bytes and MaxVars variables.
package envpass

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/zap-go/zap/internal/envfile"
)

const (
	// FDVar names the child's descriptor that holds the variables.
	FDVar = "ZAP_ENV_FD"
	// Threshold is the longest NAME=VALUE, in bytes, that goes into a
	// child's environment: well under the kernel's 128 KiB per string, so
	// that many of them still fit the whole environment's limit.
	Threshold = 32 << 10
	// Budget is the most bytes of env-file variables, all together, that
	// go into a child's environment: half the smallest whole-environment
	// limit Linux sets, leaving the other half to the operator's own.
	Budget = 64 << 10
	// MaxSize is the most bytes a reader takes from the descriptor.
	MaxSize = 64 << 20
	// MaxVars is the most variables a reader takes from the descriptor.
	MaxVars = 4096
)

const format = "zap.env/1"

// Big reports whether the variable name=value goes on the descriptor
// rather than into a child's environment.
func Big(name, value string) bool {
	return len(name)+1+len(value) > Threshold
}

// Split divides an env file's variables, in the file's order, into those a
// child's environment takes (as NAME=VALUE) and those that go on the
// descriptor: each one Big, and each one that would take the environment's
// share past Budget.
func Split(vars []envfile.Var) (env []string, desc map[string]string) {
	desc = map[string]string{}
	total := 0
	for _, v := range vars {
		n := len(v.Name) + 1 + len(v.Value) + 1 // and its pointer's NUL
		if Big(v.Name, v.Value) || total+n > Budget {
			desc[v.Name] = v.Value
			continue
		}
		total += n
		env = append(env, v.Name+"="+v.Value)
	}
	return env, desc
}

// Encode writes vars in the descriptor's form. A name that isn't an
// environment variable's, a value holding a NUL, or more than the bounds
// allow is an error.
func Encode(vars map[string]string) ([]byte, error) {
	if len(vars) > MaxVars {
		return nil, fmt.Errorf("%d variables, more than the %d %s carries", len(vars), MaxVars, FDVar)
	}
	names := make([]string, 0, len(vars))
	size := len(format) + 1
	for name, value := range vars {
		if !validName(name) {
			return nil, fmt.Errorf("%q is not an environment variable name", name)
		}
		if strings.IndexByte(value, 0) >= 0 {
			return nil, fmt.Errorf("the value of %s holds a NUL", name)
		}
		names = append(names, name)
		size += len(name) + len(value) + 2
	}
	if size > MaxSize {
		return nil, fmt.Errorf("the variables take %d bytes, more than the %d %s carries", size, MaxSize, FDVar)
	}
	slices.Sort(names)
	out := make([]byte, 0, size)
	out = append(append(out, format...), 0)
	for _, name := range names {
		out = append(append(append(append(out, name...), '='), vars[name]...), 0)
	}
	return out, nil
}

// Decode reads the descriptor's form, refusing anything Encode doesn't
// write: another format line, an entry with no = or a name that isn't one,
// a name twice or out of order, a last entry not ended by a NUL, and more
// than MaxSize bytes or MaxVars variables.
func Decode(data []byte) (map[string]string, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("%s holds more than %d bytes", FDVar, MaxSize)
	}
	head, rest, ok := bytes.Cut(data, []byte{0})
	if !ok || string(head) != format {
		return nil, fmt.Errorf("%s doesn't start with %s", FDVar, format)
	}
	vars := map[string]string{}
	last := ""
	for len(rest) > 0 {
		entry, tail, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return nil, fmt.Errorf("%s ends inside a variable", FDVar)
		}
		rest = tail
		if len(vars) == MaxVars {
			return nil, fmt.Errorf("%s holds more than %d variables", FDVar, MaxVars)
		}
		name, value, ok := bytes.Cut(entry, []byte{'='})
		if !ok || !validName(string(name)) {
			return nil, fmt.Errorf("%s holds variable %d with no valid NAME=", FDVar, len(vars)+1)
		}
		if len(vars) > 0 && string(name) <= last {
			return nil, fmt.Errorf("%s holds %s out of order or twice", FDVar, name)
		}
		last = string(name)
		vars[last] = string(value)
	}
	return vars, nil
}

func validName(name string) bool {
	if name == "" || ('0' <= name[0] && name[0] <= '9') {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// NewFile writes vars to a sealed memfd (close-on-exec in this process):
// no child can change what the next one reads. It is nil when vars is
// empty.
func NewFile(vars map[string]string) (*os.File, error) {
	if len(vars) == 0 {
		return nil, nil
	}
	data, err := Encode(vars)
	if err != nil {
		return nil, err
	}
	fd, err := unix.MemfdCreate("zap-env", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("memfd: %w", err)
	}
	f := os.NewFile(uintptr(fd), "memfd:zap-env")
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, fmt.Errorf("write the memfd: %w", err)
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS,
		unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE); err != nil {
		f.Close()
		return nil, fmt.Errorf("seal the memfd: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Attach hands f to cmd as its next ExtraFiles descriptor and sets FDVar
// in cmd's environment (cmd.Env, or this process's when that is nil) to
// its number there; a nil f only takes FDVar out. Call it once cmd's
// ExtraFiles and Env are otherwise final. When cmd runs /proc/self/fd/N
// (a pinned binary) and the descriptor would land on N, N is kept: the
// same file goes there first, through a duplicate that release closes,
// once cmd has started.
func Attach(cmd *exec.Cmd, f *os.File) (release func(), err error) {
	release = func() {}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, FDVar+"=") })
	cmd.Env = env
	if f == nil {
		return release, nil
	}
	if n, ok := strings.CutPrefix(cmd.Path, "/proc/self/fd/"); ok {
		if fd, err := strconv.Atoi(n); err == nil && fd == 3+len(cmd.ExtraFiles) {
			d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
			if err != nil {
				return release, fmt.Errorf("keep descriptor %d: %w", fd, err)
			}
			dup := os.NewFile(uintptr(d), cmd.Path)
			cmd.ExtraFiles = append(slices.Clip(cmd.ExtraFiles), dup)
			release = func() { dup.Close() }
		}
	}
	cmd.ExtraFiles = append(slices.Clip(cmd.ExtraFiles), f)
	cmd.Env = append(cmd.Env, FDVar+"="+strconv.Itoa(2+len(cmd.ExtraFiles)))
	return release, nil
}

// Env is the variables a stage was handed on FDVar's descriptor, over its
// own environment.
type Env struct {
	vars map[string]string
}

// Lookup is name's value: the descriptor's, else the environment's.
func (e *Env) Lookup(name string) (string, bool) {
	if v, ok := e.vars[name]; ok {
		return v, true
	}
	return os.LookupEnv(name)
}

// File writes the descriptor's variables to a new sealed memfd, for a
// process this one starts (NewFile); nil when there were none.
func (e *Env) File() (*os.File, error) {
	return NewFile(e.vars)
}

// ErrBadFD is a FDVar that doesn't name a descriptor holding variables.
var ErrBadFD = errors.New("bad " + FDVar)

// Load reads the variables on the descriptor FDVar names, once, at a
// stage's start: it closes the descriptor and takes FDVar out of the
// environment, so the processes the stage starts get neither. With FDVar
// unset, Lookup is the environment's. The descriptor is read from its
// start (pread), so every stage handed the same one reads all of it.
func Load() (*Env, error) {
	s, ok := os.LookupEnv(FDVar)
	if !ok {
		return &Env{}, nil
	}
	os.Unsetenv(FDVar)
	fd, err := strconv.Atoi(s)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("%w: %q is not a descriptor past stderr", ErrBadFD, s)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("%w: descriptor %d: %v", ErrBadFD, fd, err)
	}
	f := os.NewFile(uintptr(fd), FDVar)
	defer f.Close()
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("%w: descriptor %d is not a file", ErrBadFD, fd)
	}
	if st.Size > MaxSize {
		return nil, fmt.Errorf("%w: descriptor %d holds %d bytes, more than the %d it may", ErrBadFD, fd, st.Size, MaxSize)
	}
	data := make([]byte, st.Size)
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, fmt.Errorf("%w: read descriptor %d: %v", ErrBadFD, fd, err)
	}
	vars, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadFD, err)
	}
	return &Env{vars: vars}, nil
}
