// Package ops holds the constant scripts of Zap's own operations (the = steps
// of a plan). Each is embedded in the binary, run by a POSIX shell that reads
// it from stdin (or, for the few that take a payload too large to hold, from
// its argv: StreamInvocation), and parameterised only by its arguments, so
// its text, the command it is handed to and its arguments are what
// plan_hash covers.
//
// On a local target zap-exec performs the same operations natively in Go and
// falls back to the script under sudo only where it is denied; over SSH the
// script is what runs.
package ops

import (
	"embed"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/plan"
)

//go:embed scripts/*.sh scripts/lib/*.sh
var scripts embed.FS

// includeMark is a script line that stands for a shared part of several
// scripts: `#@include NAME` is replaced by scripts/lib/NAME.sh, less its
// leading comment. The script that travels, and that plan_hash covers, is
// the whole text with its parts in place.
const includeMark = "#@include "

// Invocation is the command every operation script but the streamed ones
// is handed to. The script arrives on its stdin; its arguments follow the
// --.
const Invocation = "sh -s --"

// StreamInvocation is how a streamed script runs: `sh -c SCRIPT sh ARGV...`,
// its text on the shell's argv, so that stdin holds no script for a shell
// to read ahead of, only its other arguments and its payload (StreamInput):
// a payload too large for a shell to hold as a here-document, as dash and
// BusyBox's ash hold one whole before the command reads it.
const StreamInvocation = "sh -c SCRIPT sh"

// streamed are the operations whose scripts run as StreamInvocation says:
// a put whose content is remote (plan.OpPutStream), an extract and a
// build, each of which takes an archive or a file of up to a GiB.
var streamed = map[plan.OpName]bool{plan.OpPutStream: true, plan.OpExtract: true, vocab.OpBuild: true}

// kindScripts are the scripts and shared parts a kind keeps in its own
// folder (internal/kinds/<kind>/scripts), by name, as Register added them.
var kindScripts = struct {
	sync.RWMutex
	ops, parts map[string]string
}{ops: map[string]string{}, parts: map[string]string{}}

// Register adds the operations a kind keeps in its own folder: fsys's
// scripts/*.sh, each the operation its file names, and scripts/lib/*.sh,
// shared parts any script may include. A name already taken, by Zap's own
// scripts or another kind's, is a mistake in Zap's code: Register panics.
// internal/kinds registers each kind's as it lists the kind. It returns
// the operations' names.
func Register(fsys fs.FS) []plan.OpName {
	var added []plan.OpName
	kindScripts.Lock()
	defer kindScripts.Unlock()
	for _, dir := range []string{"scripts", "scripts/lib"} {
		names, err := fs.Glob(fsys, dir+"/*.sh")
		if err != nil {
			panic("ops: " + err.Error())
		}
		into := kindScripts.ops
		if dir == "scripts/lib" {
			into = kindScripts.parts
		}
		for _, n := range names {
			b, err := fs.ReadFile(fsys, n)
			if err != nil {
				panic("ops: " + err.Error())
			}
			name := strings.TrimSuffix(path.Base(n), ".sh")
			if _, err := scripts.ReadFile(n); err == nil || into[name] != "" {
				panic("ops: two scripts named " + n)
			}
			into[name] = string(b)
			if dir == "scripts" {
				added = append(added, plan.OpName(name))
			}
		}
	}
	return added
}

// Names lists every operation that has a script: Zap's own and those the
// kinds registered, sorted.
func Names() []string {
	own, _ := fs.Glob(scripts, "scripts/*.sh")
	kindScripts.RLock()
	defer kindScripts.RUnlock()
	out := slices.Collect(maps.Keys(kindScripts.ops))
	for _, n := range own {
		out = append(out, strings.TrimSuffix(path.Base(n), ".sh"))
	}
	slices.Sort(out)
	return out
}

// source returns the text of the script or part at name in Zap's own
// scripts (rel is its path there), else in the kinds' (from).
func source(rel, name string, from func() map[string]string) (string, bool) {
	if b, err := scripts.ReadFile(rel); err == nil {
		return string(b), true
	}
	kindScripts.RLock()
	defer kindScripts.RUnlock()
	text, ok := from()[name]
	return text, ok
}

// Script returns the text of the named operation's script, its shared
// parts in place, and the command it is handed to.
func Script(name plan.OpName) (plan.Script, bool) {
	b, ok := source("scripts/"+string(name)+".sh", string(name), func() map[string]string { return kindScripts.ops })
	if !ok {
		return plan.Script{}, false
	}
	text, err := expand(b)
	if err != nil {
		return plan.Script{}, false
	}
	inv := Invocation
	if streamed[name] {
		inv = StreamInvocation
	}
	return plan.Script{Text: text, Invocation: inv}, true
}

// expand puts each shared part a script includes in place.
func expand(text string) (string, error) {
	if !strings.Contains(text, includeMark) {
		return text, nil
	}
	var out strings.Builder
	for line := range strings.SplitAfterSeq(text, "\n") {
		name, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), includeMark)
		if !ok {
			out.WriteString(line)
			continue
		}
		body, err := part(name)
		if err != nil {
			return "", err
		}
		out.WriteString(body)
	}
	return out.String(), nil
}

// part is the text of scripts/lib/NAME.sh less its leading comment.
func part(name string) (string, error) {
	body, ok := source("scripts/lib/"+name+".sh", name, func() map[string]string { return kindScripts.parts })
	if !ok {
		return "", fs.ErrNotExist
	}
	for strings.HasPrefix(body, "#") {
		_, body, _ = strings.Cut(body, "\n")
	}
	return body, nil
}

// Part returns the shared part NAME (scripts/lib/NAME.sh, less its leading
// comment), for a detection query that runs a shell function as the
// operations do ("as": zap_as). The parts are embedded, so a NAME with
// none is a mistake in Zap's own code: Part panics.
func Part(name string) string {
	body, err := part(name)
	if err != nil {
		panic("ops: no shared part " + name)
	}
	return body
}
