package zapcli

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/zap-go/zap/pkg/declaration"
)

// mayReadElevated reports whether a local pass over d may read or change
// something as root: a file (its content and metadata may be root's), a
// directory whose mode, owner or group is declared, a package (its check
// path is read elevated, and an install runs as root), a service (its verbs
// run as root, and a config that declares a trigger reads the
// pending-trigger markers as root), a user (its shadow field, keys and
// sudoers file are root's), and an installer (its check path is read
// elevated).
func mayReadElevated(d *declaration.Declaration) bool {
	for i := range d.Resources {
		r := &d.Resources[i]
		switch {
		case r.File != nil, r.Package != nil, r.Service != nil, r.User != nil, r.Installer != nil:
			return true
		case r.Directory != nil && (r.Directory.Mode != "" || r.Directory.Owner != "" || r.Directory.Group != ""):
			return true
		}
	}
	return false
}

// warmSudo lets a local pass's root reads run: zap-detect asks sudo only
// with -n (it never prompts), so before a local pass whose reads may need
// root, on an interactive terminal, zap checks sudo -n true and, when sudo
// would ask for a password, runs sudo -v on the terminal once, with no
// deadline. Without a terminal it never prompts: a read sudo refuses is
// held (sudo authentication failed). Root, a remote target and a
// declaration with nothing to read as root skip it.
func (s *session) warmSudo(ctx context.Context, d *declaration.Declaration) {
	if !d.Target.Local || os.Geteuid() == 0 || !mayReadElevated(d) {
		return
	}
	tty, ok := s.a.terminal()
	if !ok {
		return
	}
	sudo, err := exec.LookPath("sudo")
	if err != nil {
		return
	}
	check := exec.CommandContext(ctx, sudo, "-n", "true")
	check.Env = s.a.environ
	if check.Run() == nil {
		return
	}
	s.a.flushOutputs()
	v := exec.CommandContext(ctx, sudo, "-v")
	v.Env = s.a.environ
	v.Stdin, v.Stdout, v.Stderr = tty, s.a.rawStderr, s.a.rawStderr
	if err := v.Run(); err != nil {
		fmt.Fprintf(s.a.stderr, "warning: sudo -v failed (%v): a read that needs root will be held (sudo authentication failed)\n", err)
	}
}
