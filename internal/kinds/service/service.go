// Package service is the service kind: a unit enabled or disabled at boot,
// running or stopped, restarted or reloaded when what it depends on
// changes. Its wire form is pkg/declaration/kind_service.go; here are its
// reads (Service: systemd's or OpenRC's own queries), its steps, its
// preview lines, the names its steps and reads share (names.go), its
// operations' scripts (scripts/svc-*.sh and the part they share,
// scripts/lib/svc-args.sh, which Kind hands internal/ops), their wording
// (words.go) and their tests; the scripts' own tests run with
// internal/ops' (svc_test.go). Which changes fire it, and what it owes
// from an earlier run, is the planner's trigger model
// (internal/planner/triggers.go), which hands its steps the trigger
// (kind.Planned's Trigger) and marks what is owed with the pending-trigger
// ledger; so the ledger's operations and scripts (vocab.OpLedgerMark,
// ledger-*.sh) and the managers' names, which the planner shares, stay in
// internal/vocab and internal/ops/scripts. internal/kinds lists Kind.
package service

import (
	"embed"
	"errors"
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the service kind, as root.
var Kind = kind.Def[*declaration.Service]{Name: declaration.KindService, Read: NewService, Plan: steps, Show: preview, As: plan.Root, Ops: scripts, Word: words, Doc: doc}

//go:embed scripts/*.sh scripts/lib/*.sh
var scripts embed.FS

// verb is one thing the change does to the service, and how a note says it
// where the manager has no backend.
type verb struct {
	name plan.OpName
	note string
}

// steps: its trigger, then what its drift asks (enable or disable; start,
// after OpenRC's zap of a crashed service, or stop), then the clear of its
// marker. On a manager with no backend (launchd) each verb is a note.
func steps(s *declaration.Service, at kind.Planned) ([]plan.Step, error) {
	manager := at.Target.ServiceManager
	verbs, err := verbsOf(s, manager, at)
	if err != nil {
		return nil, err
	}
	steps := []plan.Step{}
	switch manager {
	case vocab.ManagerSystemd, vocab.ManagerOpenRC:
		for _, v := range verbs {
			steps = append(steps, plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: v.name, Args: []string{manager, s.Service}, Privilege: plan.Root, Timeout: OpTimeout}})
		}
		if at.Trigger != nil {
			steps = append(steps, plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: vocab.OpLedgerClear, Args: []string{s.Service}, Privilege: plan.Root, Timeout: vocab.LedgerOpTimeout}})
		}
	case "":
		return nil, errors.New("the target declares no service_manager")
	default:
		for _, v := range verbs {
			steps = append(steps, plan.Step{Type: plan.StepNote, Note: "this zap has no " + manager + " backend: " + v.note + " by hand"})
		}
	}
	return steps, nil
}

// verbsOf lists what the change does, in order.
func verbsOf(s *declaration.Service, manager string, at kind.Planned) ([]verb, error) {
	var verbs []verb
	// A service declared stopped owes nothing (it starts on the new state):
	// a marker an older config left for it is only cleared.
	if tr := at.Trigger; tr != nil && (s.Running == nil || *s.Running) {
		trigger := OpRestart
		if tr.Action == observation.Reload {
			trigger = OpReload
		}
		verbs = append(verbs, verb{trigger, string(tr.Action) + " " + s.Service + " if it is running"})
	}
	for _, d := range at.Drift {
		switch d.Field {
		case FieldEnabled:
			if d.Desired == StateEnabled {
				verbs = append(verbs, verb{OpEnable, "enable " + s.Service + " at boot"})
			} else {
				verbs = append(verbs, verb{OpDisable, "disable " + s.Service + " at boot"})
			}
		case FieldRunning:
			if d.Desired == StateRunning {
				if manager == vocab.ManagerOpenRC && d.Observed == StateCrashed {
					verbs = append(verbs, verb{OpZap, "reset " + s.Service + ", which crashed"})
				}
				verbs = append(verbs, verb{OpStart, "start " + s.Service})
			} else {
				verbs = append(verbs, verb{OpStop, "stop " + s.Service})
			}
		default:
			return nil, fmt.Errorf("drift: a service has no field %q", d.Field)
		}
	}
	return verbs, nil
}

// preview: the unit, enabled, running, and what restarts or reloads it.
func preview(s *declaration.Service, _ string) []kind.Line {
	out := []kind.Line{{Field: "service", Value: s.Service}, {Field: "enabled", Value: "true"}}
	if s.Enabled != nil && !*s.Enabled {
		out[1].Value = "false"
	}
	if s.Running != nil {
		out = append(out, kind.Line{Field: "running", Value: fmt.Sprint(*s.Running)})
	}
	if len(s.RestartOn) > 0 {
		out = append(out, kind.Line{Field: "restart_on", Value: strings.Join(s.RestartOn, ", ")})
	}
	if len(s.ReloadOn) > 0 {
		out = append(out, kind.Line{Field: "reload_on", Value: strings.Join(s.ReloadOn, ", ")})
	}
	return out
}
