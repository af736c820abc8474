package zapeval

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"syscall"

	"github.com/zap-go/zap/internal/bundle"
	"github.com/zap-go/zap/internal/evalcache"
	"github.com/zap-go/zap/internal/evaluate"
)

// openInputs opens the file --inputs names (created mode 600, or
// truncated; never through a link), nil when none is. It is opened first,
// as zap-eval runs, and written once the evaluating process has made the
// inputs document and the declaration.
func openInputs(path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, configErr(fmt.Errorf("--inputs %s is a symbolic link", path), "name a file of its own for the inputs")
		}
		return nil, ownErr(fmt.Errorf("--inputs: %w", err))
	}
	return f, nil
}

// writeInputs writes the inputs document to f, when there is one: what
// the bundle read, and the project files the config read for content. A
// file both read (a module the config also reads as text) is listed once;
// read as two different contents, it changed during the evaluation.
func writeInputs(f *os.File, read []bundle.Input, files []evaluate.FileRead) error {
	if f == nil {
		return nil
	}
	byPath := make(map[string]evalcache.Input, len(read)+len(files))
	for _, in := range read {
		byPath[in.Path] = evalcache.Input{Path: in.Path, Blake3: in.Blake3, Absent: in.Absent()}
	}
	for _, fr := range files {
		if was, ok := byPath[fr.Path]; ok && was.Blake3 != fr.Blake3 {
			return configErr(fmt.Errorf("%s changed while the config was evaluated", fr.Path), "evaluate again")
		}
		byPath[fr.Path] = evalcache.Input{Path: fr.Path, Blake3: fr.Blake3}
	}
	list := make([]evalcache.Input, 0, len(byPath))
	for _, in := range byPath {
		list = append(list, in)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	data, err := evalcache.EncodeInputs(list)
	if err != nil {
		return ownErr(fmt.Errorf("the inputs: %w", err))
	}
	if _, err := f.Write(data); err != nil {
		return ownErr(fmt.Errorf("write the inputs: %w", err))
	}
	return nil
}
