package script

import (
	"fmt"
	"maps"
	"slices"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// Script detects a script by running its check as the login user.
type Script struct {
	Command *detect.Command
}

// Queries: the check, as an operator's command.
func (s *Script) Queries() []detect.Query {
	return []detect.Query{{Op: detect.OpCommand, Lane: observation.LaneLogin, Command: s.Command}}
}

// Verdict: a check exiting 0 is converged, any other exit (a cwd it can't
// enter and a check that doesn't parse included) absent; a check with no
// exit status (timed out, killed, never started) holds.
func (s *Script) Verdict(a []detect.Answer) detect.Result {
	if len(a) != 1 {
		return detect.Holding(fmt.Sprintf("%d answers for the check's 1 read", len(a)))
	}
	switch r := a[0]; r.Status {
	case detect.StatusOK:
		if r.Exit == 0 {
			return detect.Converged()
		}
		return detect.Absent()
	case detect.StatusTimedOut:
		return detect.Holding(fmt.Sprintf("the check timed out after %ds", s.Command.Timeout))
	case detect.StatusFailed:
		if r.Detail != "" {
			return detect.Holding("the check gave no exit status: " + r.Detail)
		}
		return detect.Holding("the check gave no exit status")
	default:
		return detect.Holding(detect.Problem(r, "the check", s.Command.Timeout))
	}
}

// NewScript makes a script's detector: its check, with its env resolved.
func NewScript(s *declaration.Script, env detect.Env) detect.Detector {
	check, reason := detect.ResolveValue("check", s.Check, env, "\x00")
	if reason != "" {
		return detect.Held(reason)
	}
	cmd := &detect.Command{Text: check, Cwd: s.Cwd, Timeout: vocab.CheckTimeout}
	names := slices.Sorted(maps.Keys(s.Env))
	for _, name := range names {
		v, reason := detect.ResolveValue("env."+name, s.Env[name], env, "\x00")
		if reason != "" {
			return detect.Held(reason)
		}
		cmd.Env = append(cmd.Env, detect.Var{Name: name, Value: v})
	}
	return &Script{Command: cmd}
}
