package zapeval

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/zap-go/zap/internal/bundle"
	"github.com/zap-go/zap/internal/evalcache"
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

// writeInputs writes the inputs document to f, when there is one.
func writeInputs(f *os.File, read []bundle.Input) error {
	if f == nil {
		return nil
	}
	list := make([]evalcache.Input, len(read))
	for i, in := range read {
		list[i] = evalcache.Input{Path: in.Path, Blake3: in.Blake3, Absent: in.Absent()}
	}
	data, err := evalcache.EncodeInputs(list)
	if err != nil {
		return ownErr(fmt.Errorf("the inputs: %w", err))
	}
	if _, err := f.Write(data); err != nil {
		return ownErr(fmt.Errorf("write the inputs: %w", err))
	}
	return nil
}
