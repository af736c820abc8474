package kinds

// A swap is a swap file made, enabled and listed in /etc/fstab. Its wire
// form is pkg/declaration/kind_swap.go; its reads are detect.Swap.

import (
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// swapTimeouts are each swap operation's limit, in seconds: allocating a file
// of gigabytes with dd (where fallocate can't) takes a while.
var swapTimeouts = map[plan.OpName]int{vocab.OpSwapMake: 1800, vocab.OpSwapOn: 120, vocab.OpSwapFstab: 60}

// swapSteps, part by part from the drift as resources.md says: a swap that
// isn't active is made (allocated again, so a short file is made whole, and
// formatted) and enabled; one that is active is neither; one not in
// /etc/fstab is listed there, and one that is isn't listed again. A swap
// read absent gets all three.
func swapSteps(s *declaration.Swap, at kind.Planned) ([]plan.Step, error) {
	path := s.FilePath()
	op := func(name plan.OpName, args ...string) plan.Step {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: name, Path: declaration.Lit(path), Args: args, Privilege: plan.Root, Timeout: swapTimeouts[name]}}
	}
	inactive, unlisted := at.Verdict == observation.Absent, at.Verdict == observation.Absent
	for _, d := range at.Drift {
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
	return steps, nil
}
