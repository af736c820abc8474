// Package localops performs Zap's own operations (put, dir, link) natively in
// Go on the local machine, and runs operators' commands there. Host
// implements execute.Host.
//
// put installs a file whole. Missing parent directories are made one at a
// time, each with the mode a plain mkdir gives. The content is staged beside
// the path in a new file .zap.XXXXXX (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600)
// that stays open: the bytes are written and synced, read back through the
// descriptor and held to the plan's SHA-512, the owner, group and mode are
// set on the open file, and it is renamed onto the path. rename replaces a
// symbolic link at the path rather than following it; a directory there is a
// conflict. On any failure the staged file is removed and the path is left as
// it was.
//
// A mode, owner or group the put leaves unset is kept: from the regular file
// it replaces (read with lstat, so never through a link; the mode without
// set-id or sticky bits); for a new file, the mode is 0666 less the umask and
// the owner and group are its directory's. A symbolic link, anything else
// that isn't a regular file, or a regular file with a second name (a hard
// link) keeps nothing: the new file is the writer's, at 0666 less the umask.
// An owner or group is set only when it differs from the staged file's.
//
// A put with a validate command reads the file it replaces first, through one
// descriptor: it must be a regular file (not a link, fifo or directory) of at
// most 16 MiB, or the change fails with nothing written. After the write the
// command runs as an operator's command; when it fails the old bytes go back
// the same way (staged, renamed) with their owner and group and their mode
// less any set-id or sticky bit the declared mode doesn't carry, or a file
// that didn't exist is removed, and the put fails.
//
// dir makes each missing directory one at a time (a link in a directory on
// the way is followed), then sets the declared mode, owner and group on the
// directory itself through a descriptor opened with O_NOFOLLOW: a symbolic
// link at the path is a conflict, and what it points to is left alone.
//
// link makes the symbolic link under a new name beside the path and renames
// it onto the path, replacing a regular file or another link; a directory at
// the path is a conflict.
//
// An operator's command runs as /bin/sh reading execute.Script's text on
// stdin, never on an argv, in its own session (no terminal, its own process
// group, killed whole at its time limit), with the environment Host holds.
// What it prints is kept, the last 64 KiB, for the failure it reports.
//
// Not yet here (the shapes leave room for them): nothing is kept below a
// directory with its sticky bit set or one every account may write; a mode
// isn't kept from a file with an access list; a made directory doesn't take
// its parent's owner; an operation denied locally isn't retried under sudo.
package localops

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Host is the local machine.
type Host struct {
	// Umask is the process's file mode creation mask.
	Umask uint32
	// Env is the environment operators' commands run with.
	Env []string
	// Shell is the shell commands are handed to; "" is /bin/sh.
	Shell string
}

// New returns the local host whose commands run with env.
func New(env []string) *Host {
	return &Host{Umask: Umask(), Env: env}
}

func (h *Host) shell() string {
	if h.Shell == "" {
		return "/bin/sh"
	}
	return h.Shell
}

// Umask returns the process's umask. It reads /proc/self/status, which
// leaves the mask alone; without it, the mask is set and put back at once.
func Umask() uint32 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "Umask:"); ok {
				if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return uint32(n)
				}
			}
		}
	}
	m := syscall.Umask(0o22)
	syscall.Umask(m)
	return uint32(m)
}
