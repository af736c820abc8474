// Package localhost answers detection queries on the local machine, as the
// account Zap runs as.
//
// Path reads are answered natively, with no shell: a type read is a stat, a
// stat read an lstat, a readlink read readlink, and a content read opens only
// a regular file of its own (O_NOFOLLOW|O_NONBLOCK, so neither a symbolic
// link nor a fifo is followed or waited on; what was opened must be a regular
// file with one link, still the file at the name). A fifo, device or socket
// at the path is never opened: the lstat before the open reports it.
//
// One of Zap's own probes runs the same way, under LC_ALL=C, and its
// answer carries its stdout (at most detect.ProbeOutputLimit bytes; more
// fails the read). A probe in the root lane runs in that lane's sudo batch.
//
// An operator's command runs as /bin/sh reading the script from stdin
// (detect.Command.Script), never on an argv, with no terminal, in a session
// and process group of its own, in the operator's environment and locale.
// When its limit passes, the whole group gets SIGTERM and, a second later,
// SIGKILL, and the answer is timed_out.
//
// The login and elevated lanes are both read as the operator. The elevated
// path reads the operator is denied are then asked again as root, all in one
// batch (internal/batch's script, run with `sudo -n sh` reading it on
// stdin), after `sudo -n true` showed sudo won't prompt; the root lane is
// such a batch from the start. When sudo won't authenticate, each of those
// reads fails with the fixed reason "sudo authentication failed" (the root
// lane as a whole), and the rest of the pass stands. Asking for a password
// first (sudo -v on a terminal) is the front end's job.
package localhost

import (
	"context"
	"fmt"
	"os/user"
	"strconv"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/observation"
)

// Host is the local machine.
type Host struct {
	// Env is the environment operator commands run in: the operator's own.
	Env []string
	// Shell runs operator commands; "" is /bin/sh.
	Shell string
}

// Answer reads every query of one lane, in order.
func (h *Host) Answer(ctx context.Context, lane observation.Lane, queries []detect.Query) ([]detect.Answer, error) {
	switch lane {
	case observation.LaneLogin, observation.LaneElevated:
	case observation.LaneRoot:
		return h.asRoot(ctx, queries)
	default:
		return nil, fmt.Errorf("unknown lane %q", lane)
	}
	names := &names{users: map[uint32]string{}, groups: map[uint32]string{}}
	answers := make([]detect.Answer, len(queries))
	budget := int64(detect.TextBudget)
	for i, q := range queries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if q.Op == detect.OpText && q.Path != "" {
			answers[i] = readText(q.Path, q.Limit, &budget)
			continue
		}
		answers[i] = h.answer(ctx, q, names)
	}
	if lane == observation.LaneElevated {
		h.reaskDenied(ctx, queries, answers)
	}
	return answers, nil
}

func (h *Host) answer(ctx context.Context, q detect.Query, n *names) detect.Answer {
	if q.Op != detect.OpCommand && q.Op != detect.OpProbe && q.Path == "" {
		return failed("no path to read")
	}
	switch q.Op {
	case detect.OpType:
		return readType(q.Path)
	case detect.OpStat:
		return readStat(q.Path, n)
	case detect.OpReadlink:
		return readLink(q.Path)
	case detect.OpDigest:
		return readDigest(q.Path)
	case detect.OpContent:
		return readContent(q.Path, q.Limit)
	case detect.OpCommand:
		if q.Command == nil {
			return failed("no command to run")
		}
		return h.run(ctx, q.Command, false)
	case detect.OpProbe:
		if q.Command == nil {
			return failed("no probe to run")
		}
		return h.run(ctx, q.Command, true)
	}
	return failed(fmt.Sprintf("unknown read %q", q.Op))
}

func failed(detail string) detect.Answer {
	return detect.Answer{Status: detect.StatusFailed, Detail: detail}
}

// names maps ids to account names, as stat(1) %U and %G print them: the
// number when the id has no name.
type names struct {
	users, groups map[uint32]string
}

func (n *names) user(uid uint32) string { return accountName(n.users, uid, false) }

func (n *names) group(gid uint32) string { return accountName(n.groups, gid, true) }

// accountName is the name of the user id (or group id, when group is set),
// remembered in cache; the number when the id has none.
func accountName(cache map[uint32]string, id uint32, group bool) string {
	if s, ok := cache[id]; ok {
		return s
	}
	s := strconv.FormatUint(uint64(id), 10)
	if group {
		if g, err := user.LookupGroupId(s); err == nil {
			s = g.Name
		}
	} else if u, err := user.LookupId(s); err == nil {
		s = u.Username
	}
	cache[id] = s
	return s
}
