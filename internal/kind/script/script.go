// Package script is the script kind: a check command and a run command, in
// a cwd with an environment, as the login user. Its wire form is
// pkg/declaration/kind_script.go; its reads are detect.Script.
package script

import (
	"maps"
	"sort"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the script kind.
type Kind struct{}

// Type is "script".
func (Kind) Type() declaration.Kind { return declaration.KindScript }

// Detect runs the check.
func (Kind) Detect(r *declaration.Resource, env detect.Env) detect.Detector {
	return detect.NewScript(r.Script, env)
}

// Steps: the run, in cwd with env, as the login user.
func (Kind) Steps(r *declaration.Resource, _ kind.Planned) ([]plan.Step, error) {
	s := r.Script
	return []plan.Step{{Type: plan.StepCommand, Command: &plan.Command{
		Run:       s.Run,
		Cwd:       s.Cwd,
		Env:       maps.Clone(s.Env),
		Privilege: plan.Login,
	}}}, nil
}

// Declared: the check, the cwd and the environment (the run is the step).
func (Kind) Declared(r *declaration.Resource) []kind.Line {
	s := r.Script
	out := []kind.Line{{Field: "check", Value: s.Check.String()}}
	if s.Cwd != "" {
		out = append(out, kind.Line{Field: "cwd", Value: s.Cwd})
	}
	return append(out, kind.Env(s.Env)...)
}

// RunsAs: the login user.
func (Kind) RunsAs() plan.Privilege { return plan.Login }

// Shells: run and check are commands; each env value is a value.
func (Kind) Shells(r *declaration.Resource) []kind.Shell {
	s := r.Script
	out := []kind.Shell{{Field: "run", Text: &s.Run, InCommand: true}, {Field: "check", Text: &s.Check, InCommand: true}}
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t := s.Env[k]
		out = append(out, kind.Shell{Field: "env." + k, Text: &t})
	}
	return out
}
