// Package aptrepo is the apt_repo kind: an apt repository, a signing key
// fetched on the operator's machine and pinned, installed whole at
// key_path, and a list file holding the source line with
// signed-by=key_path in it, read by a shell with /etc/os-release sourced
// on the target. Its wire form is pkg/declaration/kind_apt_repo.go; all
// else of it is here: its reads (AptRepo), its steps and the names they
// share with the reads, its preview lines, its operations' scripts
// (scripts/apt-*.sh, scripts/lib/apt-line.sh) and their tests. The default
// paths name the resource's id (at.ID, Show's id). internal/kinds lists
// Kind.
package aptrepo

import (
	"embed"
	"errors"
	"slices"
	"strings"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the apt_repo kind, as root.
var Kind = kind.Def[*declaration.AptRepo]{Name: declaration.KindAptRepo, Read: NewAptRepo, Plan: steps, Show: preview, As: plan.Root, Ops: scripts,
	Text: map[plan.OpName]func([]string) (kind.Body, bool){OpList: listBody}, Doc: doc}

// scripts holds the operations' scripts and the part they share.
//
//go:embed scripts/*.sh scripts/lib/*.sh
var scripts embed.FS

// The operations of an apt_repo (scripts/apt-*.sh). apt-source
// is the probe detection reads the source line with; apt-list writes the
// list file, resolving the line the same way, as root.
const (
	OpSource plan.OpName = "apt-source" // LINE: prints LINE as a shell reads it with /etc/os-release sourced
	OpList   plan.OpName = "apt-list"   // PATH LINE: the list file written whole with LINE so read, 644 root:root, by rename
)

// ListTimeout is the apt-list operation's limit, in seconds.
const ListTimeout = 60

// ListLimit is how much of a list file detection reads; one longer
// differs from any line Zap writes. (The key's is vocab.AptKeyLimit, which
// the executor and the lock's pinning share.)
const ListLimit = 64 << 10

// The key and the list file are installed 644 root:root.
const (
	FileMode  = "644"
	FileOwner = "root"
)

// The parts of an apt_repo's drift (the field names); the planner reads
// them to pick the steps.
const (
	FieldKey  = "key"
	FieldList = "list"
)

// SourceLine is source with signed-by=keyPath injected: added to the
// line's options ([...] after deb or deb-src, made when there are none),
// in place of any signed-by the line names.
func SourceLine(source, keyPath string) string {
	typ, rest, _ := strings.Cut(strings.TrimSpace(source), " ")
	rest = strings.TrimLeft(rest, " \t")
	var opts []string
	if inner, after, ok := strings.Cut(strings.TrimPrefix(rest, "["), "]"); ok && strings.HasPrefix(rest, "[") {
		for _, o := range strings.Fields(inner) {
			if !strings.HasPrefix(o, "signed-by=") {
				opts = append(opts, o)
			}
		}
		rest = strings.TrimLeft(after, " \t")
	}
	opts = append(opts, "signed-by="+keyPath)
	return typ + " [" + strings.Join(opts, " ") + "] " + rest
}

// steps: the key first, so apt never reads a list whose key isn't
// there: a put of the pinned bytes (fetched on the operator's machine and
// checked against the pin before the target is touched) at key_path, 644
// root:root, when the key is missing or isn't the pin's; then the
// apt-list operation, as root, when the list file isn't the line. A
// resource read absent gets both. The package index is refreshed by the install batch of
// a package that depends on the repository (resources.md, package), not
// here.
func steps(x *declaration.AptRepo, at kind.Planned) ([]plan.Step, error) {
	keyPath, listFile := x.Paths(at.ID)
	steps := []plan.Step{}
	if wants(at, FieldKey) {
		if at.Pin == "" {
			return nil, errors.New("key_url: the signing key has no pin to install")
		}
		url := x.KeyURL
		steps = append(steps, plan.Step{Type: plan.StepOp, Op: &plan.Op{
			Name: plan.OpPut, Path: declaration.Lit(keyPath),
			Mode: FileMode, Owner: FileOwner, Group: FileOwner,
			From:      &declaration.Content{Type: declaration.ContentRemote, URL: &url, Blake3: at.Pin},
			Privilege: plan.Elevated,
		}})
	}
	if wants(at, FieldList) {
		steps = append(steps, plan.Step{Type: plan.StepOp, Op: &plan.Op{
			Name: OpList, Path: declaration.Lit(listFile),
			Args:      []string{SourceLine(x.Source, keyPath)},
			Privilege: plan.Root, Timeout: ListTimeout,
		}})
	}
	return steps, nil
}

// preview: the key's URL as declared (never fetched or resolved here),
// its pin (the vendored one; a tracked one is zap.lock's), the source line
// as declared, and the two paths, defaults included.
func preview(x *declaration.AptRepo, id string) []kind.Line {
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

// listBody: the source line apt-list writes (its one argument), under
// the step's line: rather than on its = line, as the config supplies it
// and the target's shell expands it.
func listBody(args []string) (kind.Body, bool) {
	if len(args) != 1 {
		return kind.Body{}, false
	}
	return kind.Body{Field: "line", Text: args[0], Args: 1}, true
}
