// Package swap is the swap kind: a swap file made, enabled and listed in
// /etc/fstab. Its wire form is pkg/declaration/kind_swap.go; everything
// else of it is here: its reads (Swap, the detector), its steps and the
// names they share (the operations, the parts of its drift), its
// operations' scripts (scripts/, which Kind hands internal/ops), and their
// tests. internal/kinds lists Kind.
package swap

import (
	"embed"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

//go:embed scripts/*.sh scripts/lib/*.sh
var scripts embed.FS

// Kind is the swap kind: its reads, its steps and its scripts, as root.
var Kind = kind.Def[*declaration.Swap]{Name: declaration.KindSwap, Read: NewSwap, Plan: steps, Show: show, As: plan.Root, Ops: scripts, Doc: doc}

// show: the swap file's path (the default included), the size it is made
// at, and the /etc/fstab entry that lists it, as swap-fstab writes it.
func show(s *declaration.Swap, _ string) []kind.Line {
	return []kind.Line{
		{Field: "path", Value: s.FilePath()},
		{Field: "size", Value: s.Size},
		{Field: "fstab", Value: FstabEntry(s.FilePath())},
	}
}

// FstabEntry is the /etc/fstab line that lists the swap file path, as
// scripts/swap-fstab.sh writes it (a test holds the two to one form).
func FstabEntry(path string) string { return path + " none swap sw 0 0" }

// The operations of a swap's change (scripts/swap-*.sh), each run as root
// with the swap file's path first.
const (
	OpMake  plan.OpName = "swap-make"  // PATH SIZE: the path check; a new file, 0600 root:root, fallocate (else dd), mkswap
	OpOn    plan.OpName = "swap-on"    // PATH: the path check; swapon
	OpFstab plan.OpName = "swap-fstab" // PATH: /etc/fstab rewritten whole with `PATH none swap sw 0 0`, by rename
)

// The parts of a swap's drift (the field names), and the values each shows;
// the steps read them to pick what to do.
const (
	FieldFile   = "file"
	FieldActive = "active"
	FieldFstab  = "fstab"

	Present   = "present"
	Missing   = "absent"
	Active    = "active"
	Inactive  = "not active"
	Listed    = "listed"
	NotListed = "not listed"
)

// timeouts are each swap operation's limit, in seconds: allocating a file
// of gigabytes with dd (where fallocate can't) takes a while.
var timeouts = map[plan.OpName]int{OpMake: 1800, OpOn: 120, OpFstab: 60}

// steps, part by part from the drift as resources.md says: a swap that
// isn't active is made (allocated again, so a short file is made whole, and
// formatted) and enabled; one that is active is neither; one not in
// /etc/fstab is listed there, and one that is isn't listed again. A swap
// read absent gets all three.
func steps(s *declaration.Swap, at kind.Planned) ([]plan.Step, error) {
	path := s.FilePath()
	op := func(name plan.OpName, args ...string) plan.Step {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: name, Path: declaration.Lit(path), Args: args, Privilege: plan.Root, Timeout: timeouts[name]}}
	}
	inactive, unlisted := at.Verdict == observation.Absent, at.Verdict == observation.Absent
	for _, d := range at.Drift {
		switch d.Field {
		case FieldActive:
			inactive = true
		case FieldFstab:
			unlisted = true
		}
	}
	steps := []plan.Step{}
	if inactive {
		steps = append(steps, op(OpMake, s.Size), op(OpOn))
	}
	if unlisted {
		steps = append(steps, op(OpFstab))
	}
	return steps, nil
}
