// Package script is the script kind: a check command and a run command,
// in a cwd with an environment, as the login user. Its wire form is
// pkg/declaration/kind_script.go; all else of it is here: its reads
// (Script, the check), its step, its preview lines, the texts of it that
// reach a shell, and their tests. internal/kinds lists Kind.
package script

import (
	"maps"
	"slices"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the script kind, as the login user.
var Kind = kind.Def[*declaration.Script]{Name: declaration.KindScript, Read: NewScript, Plan: steps, Show: preview, As: plan.Login, Shell: shells, Doc: doc}

// steps: the run, in its cwd with its env.
func steps(s *declaration.Script, _ kind.Planned) ([]plan.Step, error) {
	run := &plan.Command{Run: s.Run, Cwd: s.Cwd, Env: maps.Clone(s.Env), Privilege: plan.Login}
	return []plan.Step{{Type: plan.StepCommand, Command: run}}, nil
}

// preview: the check, the cwd and the env (the run is the step).
func preview(s *declaration.Script, _ string) []kind.Line {
	out := []kind.Line{{Field: "check", Value: s.Check.String()}}
	if s.Cwd != "" {
		out = append(out, kind.Line{Field: "cwd", Value: s.Cwd})
	}
	return append(out, kind.EnvLines(s.Env)...)
}

// shells: run and check are commands; each env value is a value.
func shells(s *declaration.Script) []kind.Shell {
	out := []kind.Shell{{Field: "run", Text: &s.Run, InCommand: true}, {Field: "check", Text: &s.Check, InCommand: true}}
	for _, name := range slices.Sorted(maps.Keys(s.Env)) {
		t := s.Env[name]
		out = append(out, kind.Shell{Field: "env." + name, Text: &t})
	}
	return out
}
