package declaration

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/zap-go/zap/internal/strict"
)

// Pipeline is a list of steps run in declared order on every wetrun; a
// pipeline never reads converged. A pipeline-level env, and a step's cwd, env
// or depends_on, are refused: write them into the step's run.
//
// Env, MaxConcurrency above 1 and a step's Cwd, Env and DependsOn decode so
// that the structural gate can refuse them by name: the executor doesn't run
// them. The TypeScript types leave them out (ts:"-").
type Pipeline struct {
	// The commands, run in the order listed on every wetrun.
	Steps []Step `json:"steps"`
	// Refused: a pipeline takes no environment; set variables inside each
	// step's run.
	Env map[string]Text `json:"env,omitempty" zap:"instead=varname" ts:"-"`
	// Steps run one at a time: 1 is the only value.
	MaxConcurrency *int `json:"max_concurrency,omitempty" zap:"instead=count" ts:"1"`
}

// Step is one step of a pipeline.
type Step struct {
	// Unique within the pipeline.
	ID string `json:"id" zap:"instead=step"`
	// The command, run by sh as the login user; a failing one stops the
	// pipeline. Takes references.
	Run Text `json:"run"`
	// A label for output, one line.
	Name string `json:"name,omitempty" zap:"instead=name"`
	// Refused: write cd ... && inside run.
	Cwd string `json:"cwd,omitempty" zap:"instead=step" ts:"-"`
	// Refused: write NAME=value cmd inside run.
	Env map[string]Text `json:"env,omitempty" zap:"instead=varname" ts:"-"`
	// Refused: steps run in the order listed.
	DependsOn []string `json:"depends_on,omitempty" zap:"instead=ids" ts:"-"`
}

func (x *Pipeline) CheckForm() *Finding {
	if len(x.Env) > 0 {
		return fieldf("env", "a pipeline takes no env: the executor doesn't run one; set variables inside each step's run")
	}
	if x.MaxConcurrency != nil {
		if *x.MaxConcurrency < 1 {
			return fieldf("max_concurrency", "a count is 1 or more")
		}
		if *x.MaxConcurrency > 1 {
			return fieldf("max_concurrency", "steps run one at a time: the executor doesn't run a max_concurrency above 1")
		}
	}
	if len(x.Steps) == 0 {
		return fieldf("steps", "lists no step")
	}
	ids := map[string]bool{}
	for i, s := range x.Steps {
		at := fmt.Sprintf("steps[%d]", i)
		if !ValidID(s.ID) {
			return fieldf(at+".id", "%q is not an id: a letter, digit or _, then letters, digits, _, . or -", s.ID)
		}
		if ids[s.ID] {
			return fieldf(at+".id", "%q is the id of an earlier step", s.ID)
		}
		ids[s.ID] = true
		if m := s.check(at); m != nil {
			return m
		}
	}
	return nil
}

// check checks the step at the field at, but for its id.
func (s Step) check(at string) *fieldMsg {
	if err := checkCommand(s.Run); err != nil {
		return fieldf(at+".run", "%v", err)
	}
	if s.Name != "" {
		if err := oneLine(s.Name); err != nil {
			return fieldf(at+".name", "%v", err)
		}
	}
	switch {
	case s.Cwd != "":
		return fieldf(at+".cwd", "a step takes no cwd: the executor doesn't run one; write cd ... && inside run")
	case len(s.Env) > 0:
		return fieldf(at+".env", "a step takes no env: the executor doesn't run one; write FOO=bar cmd inside run")
	case len(s.DependsOn) > 0:
		return fieldf(at+".depends_on", "steps run in declared order: the executor doesn't run dependencies between steps; order them by position")
	}
	return nil
}

func (x *Pipeline) Clone() Body {
	c := *x
	c.Steps = cloneEach(x.Steps, Step.clone)
	c.Env = maps.Clone(x.Env)
	c.MaxConcurrency = clonePtr(x.MaxConcurrency)
	return &c
}

func (s Step) clone() Step {
	s.Env, s.DependsOn = maps.Clone(s.Env), slices.Clone(s.DependsOn)
	return s
}

func (x *Pipeline) Texts(out map[string]Text) {
	for i, s := range x.Steps {
		out[fmt.Sprintf("steps[%d].run", i)] = s.Run
	}
}

func (s *Step) DecodeField(path string, raw json.RawMessage) error {
	return strict.DecodeTagged(path, raw, s)
}

// UnmarshalJSON decodes strictly; DecodeField does the work.
func (s *Step) UnmarshalJSON(data []byte) error { return s.DecodeField("", data) }
