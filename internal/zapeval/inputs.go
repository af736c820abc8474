package zapeval

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/zap-go/zap/internal/bundle"
	"github.com/zap-go/zap/internal/evalcache"
)

// inputsFDFlag hands the dropped zap-eval the inputs file root opened.
const inputsFDFlag = "inputs-fd"

// openInputs opens the file --inputs names (created mode 600, or
// truncated; never through a link), or takes the descriptor root handed
// down; nil when neither is given.
func openInputs(path string, fd int) (*os.File, error) {
	switch {
	case path != "" && fd != 0:
		return nil, configErr(fmt.Errorf("--inputs and --%s both given", inputsFDFlag))
	case fd != 0:
		if fd < 3 {
			return nil, configErr(fmt.Errorf("--%s %d: not a descriptor zap-eval was handed", inputsFDFlag, fd))
		}
		return os.NewFile(uintptr(fd), "inputs"), nil
	case path == "":
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
