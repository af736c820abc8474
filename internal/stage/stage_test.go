package stage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
)

func TestFinish(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		code   int
		stdout string
		stderr string
	}{
		{"ok", nil, 0, "", ""},
		{"bad input with hints", exit.BadInput(errors.New("format: wrong"), "make it again", "or not"), 2, "", "zap-x: format: wrong\nhint: make it again\nhint: or not\n"},
		{"world", exit.InWorld(errors.New("read plan: EOF")), 1, "", "zap-x: read plan: EOF\n"},
		{"wrapped stays marked", fmt.Errorf("outer: %w", exit.BadInput(errors.New("inner"))), 2, "", "zap-x: outer: inner\n"},
		{"unmarked", errors.New("boom"), 1, "", "zap-x: boom\n"},
		{"several lines", exit.BadInput(errors.New("2 problems:\na\n\tb"), "one\ntwo"), 2, "", "zap-x: 2 problems:\n  a\n      b\nhint: one\n  two\n"},
		{"already told", exit.Reported(1), 1, "", ""},
		{"another format", Unreadable(fmt.Errorf("read: %w", &strict.OtherFormatError{Want: "zap.plan/1", Got: "zap.plan/9"}), "plan", "zap-plan"), 2, "",
			"zap-x: plan: read: format: this reader reads \"zap.plan/1\", not \"zap.plan/9\"\nhint: make the plan with the zap-plan of this zap\n"},
		{"unreadable", Unreadable(errors.New("resources[0].id: required field missing"), "observations", "zap-detect"), 2, "",
			"zap-x: observations: resources[0].id: required field missing\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errw bytes.Buffer
			if got := Finish("zap-x", "usage\n", tc.err, &out, &errw); got != tc.code {
				t.Errorf("code %d, want %d", got, tc.code)
			}
			if out.String() != tc.stdout || errw.String() != tc.stderr {
				t.Errorf("stdout %q stderr %q", out.String(), errw.String())
			}
		})
	}
}

func TestParseAndRead(t *testing.T) {
	fs := NewFlagSet("zap-x")
	err := Parse(fs, []string{"--nope"})
	if exit.Code(err) != 2 || strings.Contains(err.Error(), "error parsing") {
		t.Errorf("unknown flag: code %d, %v", exit.Code(err), err)
	}
	var out, errw bytes.Buffer
	if Finish("zap-x", "usage: zap-x\n", Parse(NewFlagSet("zap-x"), []string{"--help"}), &out, &errw) != 0 || out.String() != "usage: zap-x\n" {
		t.Errorf("--help: %q %q", out.String(), errw.String())
	}

	fs = NewFlagSet("zap-x")
	if err := Parse(fs, nil); err != nil {
		t.Fatal(err)
	}
	data, err := ReadInput(fs, strings.NewReader("{}"), "plan")
	if err != nil || string(data) != "{}" {
		t.Errorf("stdin: %q %v", data, err)
	}
	fs = NewFlagSet("zap-x")
	_ = Parse(fs, []string{"a", "b"})
	if _, err := ReadInput(fs, nil, "plan"); exit.Code(err) != 2 {
		t.Errorf("two arguments: %v", err)
	}
	fs = NewFlagSet("zap-x")
	_ = Parse(fs, []string{t.TempDir() + "/missing"})
	if _, err := ReadInput(fs, nil, "plan"); exit.Code(err) != 1 {
		t.Errorf("missing file: %v", err)
	}
}

// TestReadInputLimit checks an input over canon.MaxSize is an input to fix,
// naming the bound, from stdin and from a file, and one of exactly
// canon.MaxSize reads.
func TestReadInputLimit(t *testing.T) {
	over := func() io.Reader { return io.LimitReader(zeros{}, canon.MaxSize+1) }
	fs := NewFlagSet("zap-x")
	_ = Parse(fs, nil)
	_, err := ReadInput(fs, over(), "plan")
	var limit *canon.LimitError
	if exit.Code(err) != 2 || !errors.As(err, &limit) || err.Error() != "plan: document size limit: larger than 64 MiB" {
		t.Errorf("stdin over the limit: code %d, %v", exit.Code(err), err)
	}
	if data, err := ReadInput(fs, io.LimitReader(zeros{}, canon.MaxSize), "plan"); err != nil || len(data) != canon.MaxSize {
		t.Errorf("stdin of the limit: %d bytes, %v", len(data), err)
	}
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, canon.MaxSize+1); err != nil {
		t.Fatal(err)
	}
	fs = NewFlagSet("zap-x")
	_ = Parse(fs, []string{big})
	if _, err := ReadInput(fs, nil, "plan"); exit.Code(err) != 2 || !errors.As(err, &limit) {
		t.Errorf("a file over the limit: code %d, %v", exit.Code(err), err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestCheckOutput(t *testing.T) {
	if err := CheckOutput(make([]byte, canon.MaxSize), "plan", "zap-exec"); err != nil {
		t.Errorf("a plan of the limit: %v", err)
	}
	err := CheckOutput(make([]byte, canon.MaxSize+1), "plan", "zap-exec", "a hint")
	var e *exit.Error
	if exit.Code(err) != 2 || err.Error() != "the plan would be larger than 64 MiB, the most zap-exec reads" || !errors.As(err, &e) || len(e.Hints) != 1 {
		t.Errorf("a plan over the limit: code %d, %v", exit.Code(err), err)
	}
}
