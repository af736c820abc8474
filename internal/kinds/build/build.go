// Package build is the build kind: a tool built from a fetched, pinned
// source archive. The archive goes to the target, is unpacked in a private
// temporary directory and built there by its run, as the login user; then
// the provenance sidecar beside the output records which source and which
// build made it. Its wire form is pkg/declaration/kind_build.go; everything
// else of it is here: its reads (Built, the detector, and the provenance
// it compares), its steps, its preview lines, the texts of it that reach a
// shell, its operation's script (scripts/build.sh, which Kind hands
// internal/ops) and their tests. The operation's name and arguments stay in
// internal/vocab (vocab.OpBuild, BuildArgs, BuildSourceLimit): the executor
// (internal/zapexec) appends the archive to them, the lock's pinning
// (internal/pass) bounds the source by them and internal/ops streams the
// operation by its name. internal/kinds lists Kind.
package build

import (
	"crypto/sha512"
	"embed"
	"encoding/hex"
	"errors"
	"maps"
	"regexp"
	"slices"
	"strconv"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

//go:embed scripts/*.sh
var scripts embed.FS

// Kind is the build kind: its reads, its steps, its preview, its shell
// texts and its script. Its reads are elevated, like every read of a path.
var Kind = kind.Def[*declaration.Build]{Name: declaration.KindBuild, Read: NewBuild, Plan: steps, Show: show, As: plan.Elevated, Shell: shells, Ops: scripts, Doc: doc}

// steps: the build operation, as the login user, with the output as
// its path and the pin, the extract form, the cwd and the source's name as
// its arguments (run and env reach it from the resource when zap-exec
// acts); then a put, elevated, of the provenance sidecar. The runner stops
// a change at its first failed step, so a build that failed records no
// provenance.
func steps(b *declaration.Build, at kind.Planned) ([]plan.Step, error) {
	if at.Pin == "" {
		return nil, errors.New("source: no pin to build from")
	}
	extract, strip := string(declaration.ExtractNone), 0
	if x := b.Source.Extract; x != nil {
		extract = string(x.Type)
		if x.StripComponents != nil {
			strip = *x.StripComponents
		}
	}
	cwd := b.Cwd
	if cwd == "" {
		cwd = "."
	}
	args := make([]string, vocab.BuildArgs)
	args[vocab.BuildArgPin], args[vocab.BuildArgExtract], args[vocab.BuildArgStrip] = at.Pin, extract, strconv.Itoa(strip)
	args[vocab.BuildArgCwd], args[vocab.BuildArgName] = cwd, sourceName(b.Source.URL)
	prov := Provenance(b, at.Pin) + "\n"
	sum := sha512.Sum512([]byte(prov))
	sidecar := declaration.Concat(append(b.Output.Parts(), declaration.Part{Lit: SidecarSuffix})...)
	return []plan.Step{
		{Type: plan.StepOp, Op: &plan.Op{Name: vocab.OpBuild, Path: b.Output, Args: args, Privilege: plan.Login}},
		{Type: plan.StepOp, Op: &plan.Op{Name: plan.OpPut, Path: sidecar, Content: &prov, SHA512: hex.EncodeToString(sum[:]), Privilege: plan.Elevated}},
	}, nil
}

// fileName is a name an unextracted source may take as it is.
var fileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// sourceName is the name an unextracted source takes in the source
// directory: the last segment of its URL's path as written when that is a
// plain file name with no reference, else "source".
func sourceName(u declaration.Text) string {
	s, ok := u.Plain()
	if !ok {
		return "source"
	}
	for i, c := range s {
		if c == '?' || c == '#' {
			s = s[:i]
			break
		}
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			s = s[i+1:]
			break
		}
	}
	if !fileName.MatchString(s) || len(s) > 255 {
		return "source"
	}
	return s
}

// show: the source (its URL as declared, the pin when vendored, the
// extract form, the minisign key and signature URL; never the auth), the
// run, the output, the cwd and the env by name with its value as declared.
func show(b *declaration.Build, _ string) []kind.Line {
	s := b.Source
	out := []kind.Line{{Field: "source", Value: s.URL.String()}}
	if s.Blake3 != "" {
		out = append(out, kind.Line{Field: "blake3", Value: s.Blake3})
	} else {
		out = append(out, kind.Line{Field: "blake3", Value: "tracked in zap.lock"})
	}
	if x := s.Extract; x != nil && x.Type != declaration.ExtractNone {
		v := string(x.Type)
		if x.StripComponents != nil {
			v += ", strip_components " + strconv.Itoa(*x.StripComponents)
		}
		out = append(out, kind.Line{Field: "extract", Value: v})
	}
	if v := s.Verify; v != nil {
		out = append(out, kind.Line{Field: "verify", Value: v.Scheme + " " + v.PublicKey})
		if v.SignatureURL != nil {
			out = append(out, kind.Line{Field: "signature", Value: v.SignatureURL.String()})
		}
	}
	if s.Auth != nil {
		out = append(out, kind.Line{Field: "auth", Value: s.Auth.String()})
	}
	out = append(out, kind.Line{Field: "run", Value: b.Run.String()}, kind.Line{Field: "output", Value: b.Output.String()})
	if b.Cwd != "" {
		out = append(out, kind.Line{Field: "cwd", Value: b.Cwd})
	}
	return append(out, kind.EnvLines(b.Env)...)
}

// shells: run is a command; each env value is a value.
func shells(b *declaration.Build) []kind.Shell {
	out := []kind.Shell{{Field: "run", Text: &b.Run, InCommand: true}}
	for _, name := range slices.Sorted(maps.Keys(b.Env)) {
		t := b.Env[name]
		out = append(out, kind.Shell{Field: "env." + name, Text: &t})
	}
	return out
}
