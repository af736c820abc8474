package kinds

// An apt_repo is an apt repository: a signing key fetched on the operator's
// machine and pinned, installed whole at key_path, and a list file holding
// the source line with signed-by=key_path in it, read by a shell with
// /etc/os-release sourced on the target. Its wire form is
// pkg/declaration/kind_apt_repo.go; its reads are detect.AptRepo. The
// default paths name the resource's id (at.ID, Show's id).

import (
	"errors"
	"slices"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// aptRepoSteps: the key first, so apt never reads a list whose key isn't
// there: a put of the pinned bytes (fetched on the operator's machine and
// checked against the pin before the target is touched) at key_path, 644
// root:root, when the key is missing or isn't the pin's; then the
// apt-list operation, as root, when the list file isn't the line. A
// resource read absent gets both. The package index is refreshed by the install batch of
// a package that depends on the repository (resources.md, package), not
// here.
func aptRepoSteps(x *declaration.AptRepo, at kind.Planned) ([]plan.Step, error) {
	keyPath, listFile := x.Paths(at.ID)
	steps := []plan.Step{}
	if wants(at, vocab.FieldAptKey) {
		if at.Pin == "" {
			return nil, errors.New("key_url: the signing key has no pin to install")
		}
		url := x.KeyURL
		steps = append(steps, plan.Step{Type: plan.StepOp, Op: &plan.Op{
			Name: plan.OpPut, Path: declaration.Lit(keyPath),
			Mode: vocab.AptFileMode, Owner: vocab.AptFileOwner, Group: vocab.AptFileOwner,
			From:      &declaration.Content{Type: declaration.ContentRemote, URL: &url, Blake3: at.Pin},
			Privilege: plan.Elevated,
		}})
	}
	if wants(at, vocab.FieldAptList) {
		steps = append(steps, plan.Step{Type: plan.StepOp, Op: &plan.Op{
			Name: vocab.OpAptList, Path: declaration.Lit(listFile),
			Args:      []string{vocab.AptSourceLine(x.Source, keyPath)},
			Privilege: plan.Root, Timeout: vocab.AptListTimeout,
		}})
	}
	return steps, nil
}

// showAptRepo: the key's URL as declared (never fetched or resolved here),
// its pin (the vendored one; a tracked one is zap.lock's), the source line
// as declared, and the two paths, defaults included.
func showAptRepo(x *declaration.AptRepo, id string) []kind.Line {
	keyPath, listFile := x.Paths(id)
	pin := x.KeyBlake3
	if pin == "" {
		pin = "tracked in zap.lock"
	}
	return []kind.Line{
		{Field: "key", Value: x.KeyURL.String()},
		{Field: "pin", Value: pin},
		{Field: "source", Value: x.Source},
		{Field: "key_path", Value: keyPath},
		{Field: "list_file", Value: listFile},
	}
}

// wants reports whether the change needs the part of its resource a drift
// field names: every part of one read absent, a drifted part of another.
func wants(at kind.Planned, field string) bool {
	return at.Verdict == observation.Absent || slices.ContainsFunc(at.Drift, func(d observation.Difference) bool { return d.Field == field })
}

// aptListBody: the source line apt-list writes (its one argument), under
// the step's line: rather than on its = line, as the config supplies it
// and the target's shell expands it.
func aptListBody(args []string) (Body, bool) {
	if len(args) != 1 {
		return Body{}, false
	}
	return Body{Field: "line", Text: args[0], Args: 1}, true
}
