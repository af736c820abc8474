package bundle

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/project"
)

// Input is one thing on disk the bundle depends on: a file it read, with the
// blake3 of the bytes it read, or a path whose absence decided a resolution
// (Blake3 is then "").
type Input struct {
	Path   string
	Blake3 string
}

// Absent reports whether the input is a path that didn't exist.
func (in Input) Absent() bool { return in.Blake3 == "" }

// inputs records what the bundle read. esbuild calls the plugin from
// several goroutines at once.
type inputs struct {
	mu   sync.Mutex
	seen map[string]string
	dirs map[string]bool
}

func (in *inputs) add(path, sum string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.seen == nil {
		in.seen = map[string]string{}
	}
	in.seen[path] = sum
}

// read records the bytes read at path.
func (in *inputs) read(path string, data []byte) {
	sum := blake3.Sum256(data)
	in.add(path, hex.EncodeToString(sum[:]))
}

// absent records that nothing is at path.
func (in *inputs) absent(path string) { in.add(path, "") }

// packageJSONs records the package.json of every directory from dir up to
// root, present or not: esbuild reads them (a "type", "sideEffects" or
// "exports" there changes the bundle), and one appearing between the
// config and the project's root moves the project.
func (in *inputs) packageJSONs(dir, root string) {
	for {
		in.mu.Lock()
		done := in.dirs[dir]
		if in.dirs == nil {
			in.dirs = map[string]bool{}
		}
		in.dirs[dir] = true
		in.mu.Unlock()
		if done {
			return
		}
		p := filepath.Join(dir, "package.json")
		if data, err := os.ReadFile(p); err == nil {
			in.read(p, data)
		} else if errors.Is(err, fs.ErrNotExist) {
			in.absent(p)
		}
		// Anything else (unreadable) fails the evaluation where esbuild
		// reads it, or is outside what the sandbox lets anything read.
		if dir == root || !project.Within(dir, root) {
			return
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return
		}
		dir = parent
	}
}

// list is the inputs sorted by path.
func (in *inputs) list() []Input {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]Input, 0, len(in.seen))
	for p, s := range in.seen {
		out = append(out, Input{Path: p, Blake3: s})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// rootOf is the project root or the linked package that holds the real path
// p, "" when none does.
func (r *resolver) rootOf(p string) string {
	if project.Within(p, r.p.Root) {
		return r.p.Root
	}
	for _, pkg := range r.p.Packages {
		if project.Within(p, pkg) {
			return pkg
		}
	}
	return ""
}
