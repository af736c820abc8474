package planner

import (
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// swapTimeouts are each swap operation's limit, in seconds: allocating a
// file of gigabytes with dd (where fallocate can't) takes a while.
var swapTimeouts = map[plan.OpName]int{vocab.OpSwapMake: 1800, vocab.OpSwapOn: 120, vocab.OpSwapFstab: 60}

// swapSteps are a swap's steps, part by part as resources.md says: a swap
// that isn't active is made (allocated again, so a short file is made
// whole, and formatted) and enabled; one that is active is neither; one
// not in /etc/fstab is listed there, and one that is isn't listed again. A
// swap read absent gets all three.
func swapSteps(s *declaration.Swap, v observation.Verdict, drift []observation.Difference) []plan.Step {
	path := s.FilePath()
	op := func(name plan.OpName, args ...string) plan.Step {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: name, Path: declaration.Lit(path), Args: args, Privilege: plan.Root, Timeout: swapTimeouts[name]}}
	}
	inactive, unlisted := v == observation.Absent, v == observation.Absent
	for _, d := range drift {
		switch d.Field {
		case vocab.FieldSwapActive:
			inactive = true
		case vocab.FieldSwapFstab:
			unlisted = true
		}
	}
	steps := []plan.Step{}
	if inactive {
		steps = append(steps, op(vocab.OpSwapMake, s.Size), op(vocab.OpSwapOn))
	}
	if unlisted {
		steps = append(steps, op(vocab.OpSwapFstab))
	}
	return steps
}
