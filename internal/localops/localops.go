// Package localops performs Zap's own operations (put, dir, link) natively in
// Go on the local machine, and runs operators' commands there. Host
// implements execute.Host.
//
// Every operation works inside the directories of its path held open: the
// path is walked one name at a time from /, each directory opened inside the
// one before it (a link in a directory on the way is followed, as the kernel
// follows it). A missing directory is made there (mkdirat, the mode a plain
// mkdir gives), opened without following a link, and must be the empty
// directory of the writer's just made, or the operation fails; it is given,
// through its descriptor, the owner and group of the directory it was made
// in, so it belongs to someone who could have made it. Below a shared
// directory (its sticky bit set, or one every account may write, such as
// /tmp), on the path as written or found by walking up by .. from where the
// path leads, a made directory stays the writer's.
//
// put installs a file whole. The content is staged beside the path in a new
// file .zap.lk.XXXXXX (openat O_CREAT|O_EXCL|O_NOFOLLOW, then mode 0600 set
// on it whatever the umask or a default access list gave) that stays open
// and locked (flock, LOCK_EX) until it is renamed into place; before a byte
// is written it must be a regular file of the writer's, empty, with one
// name, and still the file at the staged name once locked. The bytes are
// written and synced, read back through the descriptor and held to the
// plan's SHA-512, the owner, group and mode are set on the open file, and,
// once the staged name is checked to still be that file, it is renamed onto
// the path (renameat in the held directory). rename replaces a symbolic link
// at the path rather than following it; a directory there is a conflict. On
// any failure the staged file, if the name is still it, is removed and the
// path is left as it was.
//
// A mode, owner or group the put leaves unset is kept from the regular file
// it replaces (read without following a link; the mode without set-id or
// sticky bits); a new file takes 0666 less the umask and its directory's
// owner and group. A symbolic link, anything else that isn't a regular file,
// a regular file with a second name (a hard link), and anything below a
// shared directory keep nothing: the new file is the writer's, at 0666 less
// the umask. A mode is never kept from a file with an extended access list
// (the system.posix_acl_access attribute): such a put is refused until it
// declares mode. An owner or group is set only when it differs from the
// staged file's.
//
// A put with a validate command reads the file it replaces first, through one
// descriptor (O_NOFOLLOW|O_NONBLOCK, so neither a link nor a fifo holds it):
// it must be a regular file of at most 16 MiB, or the change fails with
// nothing written. After the write the command runs as an operator's
// command; when it fails the old bytes go back the same way (staged,
// renamed) with their owner and group and their mode less any set-id or
// sticky bit the declared mode doesn't carry, or a file that didn't exist is
// removed, and the put fails.
//
// dir makes each missing directory as above, the last one too, then sets
// the declared mode, owner and group on the directory itself through a
// descriptor opened with O_NOFOLLOW: a symbolic link at the path is a
// conflict, and what it points to is left alone.
//
// link makes the symbolic link under a new name beside the path and renames
// it onto the path, replacing a regular file or another link; a directory at
// the path is a conflict. The new name is a staged file's, .zap.lk.XXXXXX,
// followed by .ln; the file, staged and locked as a put's is, is removed
// once the link is in place.
//
// A put or link first removes what killed writers left beside its path,
// and only that: the first one of a run into a directory does, as the
// directory is read whole for it; later ones into the same directory (the
// same device and inode) leave that to it, since a leftover appears only
// when a writer is killed, and one of this run's fails the run. A live writer holds the lock on its staged file from just
// after making it until it is in place, so a .zap.lk.XXXXXX that is a
// regular file with one name and can be locked without waiting is a killed
// writer's; it is removed, with its .ln link, while locked. This is done
// only in a directory that neither its group nor others may write, and
// only for the writer's own files: in the writer's own directory, where no
// other account (root aside) can make, rename or remove a name while it is
// read, or, for root, in any account's (cleanStaged says why that is safe);
// elsewhere leftovers stay. A writer that finds its
// staged file gone once it holds the lock (a cleaner took it, not yet
// locked, for a killed writer's) stages another. The internal/ops scripts
// keep the same rule where the host has flock and the directory is the
// writer's (lib/stage.sh); elsewhere (no flock, or root in another
// account's directory) they stage .zap.pPID.UID.NS.BOOT.XXXXXX, naming the
// writing shell, and remove their own uid's such file once /proc shows its
// shell gone. A native write leaves those to the scripts.
//
// An operation the system refuses natively (EACCES, EPERM) is handed to
// Host.Elevated when it is set, and done again there whole. Sudo is that
// fallback (zap-exec sets it): the same operation as one constant script of
// internal/ops under sudo -n, after one sudo -n true per run (a sudo that
// would prompt is the fixed failure "sudo authentication failed"). Without
// it the refusal is the operation's failure.
//
// An operator's command runs as /bin/sh reading execute.Script's text on
// stdin, never on an argv, in its own session (no terminal, its own process
// group, killed whole at its time limit), with the environment Host holds.
// What it prints is kept, the last 64 KiB, for the failure it reports.
package localops

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/zap-go/zap/internal/execute"
)

// Host is the local machine.
type Host struct {
	// Umask is the process's file mode creation mask.
	Umask uint32
	// Env is the environment operators' commands run with.
	Env []string
	// Shell is the shell commands are handed to; "" is /bin/sh.
	Shell string
	// Elevated performs an operation the system refused natively (EACCES,
	// EPERM) with more privilege: the constant script under sudo. nil: a
	// refused operation fails as refused. This is the seam the sudo
	// fallback plugs into.
	Elevated Ops

	// cleaned is the directories this run has cleaned of killed writers'
	// leftovers: a Host is one run's.
	cleaned cleaned

	// sudo is whether sudo runs without a password, asked once per run by
	// the first operation that needs root (Op).
	sudo sudoState
}

// Ops performs Zap's own operations on a host.
type Ops interface {
	Put(ctx context.Context, p *execute.Put) error
	Dir(ctx context.Context, d *execute.Dir) error
	Link(ctx context.Context, l *execute.Link) error
}

// Put installs a file whole (see the package documentation).
func (h *Host) Put(ctx context.Context, p *execute.Put) error {
	return h.orElevated(h.put(ctx, p), func(e Ops) error { return e.Put(ctx, p) })
}

// Dir makes a directory and sets its declared mode, owner and group (see the
// package documentation).
func (h *Host) Dir(ctx context.Context, d *execute.Dir) error {
	return h.orElevated(h.dir(d), func(e Ops) error { return e.Dir(ctx, d) })
}

// Link makes path a symbolic link to target (see the package documentation).
func (h *Host) Link(ctx context.Context, l *execute.Link) error {
	return h.orElevated(h.link(l), func(e Ops) error { return e.Link(ctx, l) })
}

// orElevated is err, the outcome of an operation done natively, or, when
// the system denied it and the host has Elevated, the operation done there
// again whole (again).
func (h *Host) orElevated(err error, again func(Ops) error) error {
	if h.Elevated != nil && denied(err) {
		return again(h.Elevated)
	}
	return err
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
