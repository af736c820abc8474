package detect

import (
	"fmt"
	"maps"
	"slices"

	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// Script detects a script by running its check as the login user.
type Script struct {
	Command *Command
}

// Queries: the check, as an operator's command.
func (s *Script) Queries() []Query {
	return []Query{{Op: OpCommand, Lane: observation.LaneLogin, Command: s.Command}}
}

// Verdict: a check exiting 0 is converged, any other exit (a cwd it can't
// enter and a check that doesn't parse included) absent; a check with no
// exit status (timed out, killed, never started) holds.
func (s *Script) Verdict(a []Answer) Result {
	if len(a) != 1 {
		return hold(fmt.Sprintf("%d answers for the check's 1 read", len(a)))
	}
	switch r := a[0]; r.Status {
	case StatusOK:
		if r.Exit == 0 {
			return converged()
		}
		return absent()
	case StatusTimedOut:
		return hold(fmt.Sprintf("the check timed out after %ds", s.Command.Timeout))
	case StatusFailed:
		if r.Detail != "" {
			return hold("the check gave no exit status: " + r.Detail)
		}
		return hold("the check gave no exit status")
	default:
		return hold(problem(r, "the check", s.Command.Timeout))
	}
}

// NewScript makes a script's detector: its check, with its env resolved.
func NewScript(s *declaration.Script, env Env) Detector {
	check, reason := resolveValue("check", s.Check, env, "\x00")
	if reason != "" {
		return Held(reason)
	}
	cmd := &Command{Text: check, Cwd: s.Cwd, Timeout: vocab.CheckTimeout}
	names := slices.Sorted(maps.Keys(s.Env))
	for _, name := range names {
		v, reason := resolveValue("env."+name, s.Env[name], env, "\x00")
		if reason != "" {
			return Held(reason)
		}
		cmd.Env = append(cmd.Env, Var{Name: name, Value: v})
	}
	return &Script{Command: cmd}
}
