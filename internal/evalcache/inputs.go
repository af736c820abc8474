package evalcache

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
)

// InputsFormat is the format of the inputs document zap-eval --inputs
// writes.
const InputsFormat = "zap.evalinputs/1"

// Input is one thing on disk an evaluation depends on: a file, with the
// blake3 of the bytes the evaluator read, or a path whose absence decided
// a resolution.
type Input struct {
	Path   string `json:"path"`
	Blake3 string `json:"blake3,omitempty"`
	Absent bool   `json:"absent,omitempty"`
}

// Inputs is the document zap-eval --inputs FILE writes.
type Inputs struct {
	Format string  `json:"format"`
	Inputs []Input `json:"inputs"`
}

// EncodeInputs is the canonical JSON of the inputs document, newline
// included.
func EncodeInputs(inputs []Input) ([]byte, error) {
	if err := CheckInputs(inputs); err != nil {
		return nil, err
	}
	data, err := canon.Marshal(Inputs{Format: InputsFormat, Inputs: inputs})
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// ReadInputs reads an inputs document, strictly.
func ReadInputs(data []byte) ([]Input, error) {
	if err := canon.Check(data, nil); err != nil {
		return nil, err
	}
	var doc Inputs
	if err := strict.Decode(data, &doc); err != nil {
		return nil, err
	}
	if doc.Format != InputsFormat {
		return nil, fmt.Errorf("format: want %q", InputsFormat)
	}
	if doc.Inputs == nil {
		return nil, errors.New("inputs: missing")
	}
	return doc.Inputs, CheckInputs(doc.Inputs)
}

// CheckInputs requires clean absolute paths, sorted and each listed once,
// each either absent or with a blake3 of 64 lowercase hex digits.
func CheckInputs(inputs []Input) error {
	for i, in := range inputs {
		switch {
		case !filepath.IsAbs(in.Path) || filepath.Clean(in.Path) != in.Path:
			return fmt.Errorf("inputs[%d].path: %q is not a clean absolute path", i, in.Path)
		case i > 0 && inputs[i-1].Path >= in.Path:
			return fmt.Errorf("inputs[%d].path: %q is out of order or listed twice", i, in.Path)
		case in.Absent && in.Blake3 != "":
			return fmt.Errorf("inputs[%d]: an absent path has no blake3", i)
		case !in.Absent && !isHex64(in.Blake3):
			return fmt.Errorf("inputs[%d].blake3: want 64 lowercase hex digits", i)
		}
	}
	return nil
}
