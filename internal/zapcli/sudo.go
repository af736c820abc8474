package zapcli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kinds"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// operator is the account a local pass runs as, as far as root is
// concerned: what it owns without sudo.
type operator struct {
	// home is the operator's home, absolute: what ~ and $HOME are.
	home string
	// isUser reports whether an account name is the operator's, and
	// inGroup whether a group name is one of the operator's groups.
	isUser, inGroup func(name string) bool
}

// currentOperator is the account zap runs as, with home its HOME.
func currentOperator(home string) operator {
	return operator{
		home: home,
		isUser: func(name string) bool {
			u, err := user.Lookup(name)
			return err == nil && u.Uid == strconv.Itoa(os.Getuid())
		},
		inGroup: func(name string) bool {
			g, err := user.LookupGroup(name)
			if err != nil {
				return false
			}
			gid, err := strconv.Atoi(g.Gid)
			if err != nil {
				return false
			}
			groups, _ := os.Getgroups()
			return gid == os.Getgid() || slices.Contains(groups, gid)
		},
	}
}

// owns reports whether path (absolute, resolved) is at or under the
// operator's home.
func (o operator) owns(path string) bool {
	home := filepath.Clean(o.home)
	if !filepath.IsAbs(home) || home == "/" {
		return false
	}
	path = filepath.Clean(path)
	return path == home || strings.HasPrefix(path, home+"/")
}

// gives reports whether a file operation leaves its path the operator's
// own: an owner and group left unset, or the operator's.
func (o operator) gives(owner, group string) bool {
	return (owner == "" || o.isUser(owner)) && (group == "" || o.inGroup(group))
}

// needsRoot reports whether a local pass over d may need root, and so sudo.
// The reads are the ones zap-detect makes, built the same way (each kind's Detect
// against the same home and environment): a read in the root lane, the
// pending-trigger markers a trigger has read as root, and an elevated read
// of a path outside the operator's home (locally an elevated read is tried
// as the operator first, and goes to sudo only when denied, which the
// operator's own files aren't). With changes (a wetrun), also each step
// that runs as root (a package, service, user, swap or firewall) and each
// file, directory or link operation outside the operator's home or giving
// its path an owner or group not the operator's. A resource detection holds
// reads nothing and is never planned. So a config that touches only the
// operator's own files never needs root (detection.md).
func needsRoot(d *declaration.Declaration, env detect.Env, o operator, changes bool) bool {
	if detect.DeclaresTrigger(d) {
		return true
	}
	for i := range d.Resources {
		r := &d.Resources[i]
		k := kinds.Of(r)
		det := k.Detect(r, env)
		for _, q := range det.Queries() {
			switch q.Lane {
			case observation.LaneRoot:
				return true
			case observation.LaneElevated:
				if q.Path == "" || !o.owns(q.Path) {
					return true
				}
			}
		}
		if !changes {
			continue
		}
		switch k.RunsAs() {
		case plan.Login:
			// Its steps run as the operator.
		case plan.Elevated:
			// A held file, directory or link (no Placed detector) reads
			// nothing and is never planned.
			if p, ok := det.(detect.Placed); ok {
				path, owner, group := p.Placement()
				if !o.owns(path) || !o.gives(owner, group) {
					return true
				}
			}
		default:
			// Its steps run as root; a kind this zap can't act on needs it
			// only for the reads detection makes.
			if kinds.Known(r.Type) || len(det.Queries()) > 0 {
				return true
			}
		}
	}
	return false
}

// warmSudo lets a local pass's root reads and steps run: the stages ask
// sudo only with -n (they never prompt), so before a local pass that may
// need root (needsRoot; changes for a wetrun), on an interactive terminal,
// zap checks sudo -n true and, when sudo would ask for a password, runs
// sudo -v on the terminal once, with no deadline. Without a terminal it
// never prompts: a read sudo refuses is held (sudo authentication failed).
// Root, a remote target and a pass that needs no root skip it, and never
// run sudo.
func (s *session) warmSudo(ctx context.Context, d *declaration.Declaration, changes bool) {
	if !d.Target.Local || os.Geteuid() == 0 {
		return
	}
	env := detect.Env{
		Home:           s.a.getenv("HOME"),
		Value:          func(name string) string { v, _ := s.Res.Lookup(name); return v },
		Secret:         func(string) bool { return false },
		PackageManager: d.Target.PackageManager,
		ServiceManager: d.Target.ServiceManager,
	}
	if !needsRoot(d, env, currentOperator(env.Home), changes) {
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
