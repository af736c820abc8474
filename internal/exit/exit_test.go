package exit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"testing"
)

var errSentinel = errors.New("sentinel")

// TestSeesThrough checks errors.Is and errors.As find what an Error wraps,
// however it was made, and through a wrapper of it.
func TestSeesThrough(t *testing.T) {
	path := &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}
	for _, tc := range []struct {
		name string
		err  error
		code int
	}{
		{"BadInput", BadInput(errSentinel), 2},
		{"InWorld", InWorld(fmt.Errorf("read: %w", errSentinel)), 1},
		{"Failf", Failf(2, "state: %w", errSentinel), 2},
		{"WithHints", WithHints(BadInput(errSentinel), "a hint"), 2},
		{"WithHints of a plain error", WithHints(errSentinel, "a hint"), 1},
		{"wrapped", fmt.Errorf("outer: %w", InWorld(errSentinel)), 1},
	} {
		if !errors.Is(tc.err, errSentinel) {
			t.Errorf("%s: errors.Is doesn't find the sentinel in %v", tc.name, tc.err)
		}
		var e *Error
		if !errors.As(tc.err, &e) || Code(tc.err) != tc.code {
			t.Errorf("%s: code %d, want %d", tc.name, Code(tc.err), tc.code)
		}
	}
	var pe *fs.PathError
	if err := InWorld(path); !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.As doesn't find the *fs.PathError in %v", err)
	}
	if errors.Is(Fail(1, "sentinel"), errSentinel) {
		t.Error("Fail's message matched a sentinel by its text")
	}
}

func TestCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
	}{
		{nil, 0},
		{errSentinel, 1},
		{BadInput(errSentinel), 2},
		{InWorld(errSentinel), 1},
		{Fail(2, "x"), 2},
		{Reported(2), 2},
		{Reported(0), 0},
		// The outermost code wins: a wrapper says what the failure is to it.
		{&Error{Code: 1, Err: BadInput(errSentinel)}, 1},
		{errors.Join(errSentinel, BadInput(errSentinel)), 2},
	} {
		if got := Code(tc.err); got != tc.code {
			t.Errorf("Code(%v) = %d, want %d", tc.err, got, tc.code)
		}
	}
}

// TestHints checks a wrapper's hints follow those of what it wraps.
func TestHints(t *testing.T) {
	err := WithHints(fmt.Errorf("lock: %w", BadInput(errSentinel, "first", "second")), "third")
	if got, want := Hints(err), []string{"first", "second", "third"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Hints = %q, want %q", got, want)
	}
	if got := Hints(errors.Join(BadInput(errSentinel, "a"), InWorld(errSentinel, "b"))); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("Hints of a join = %q", got)
	}
	if Hints(errSentinel) != nil || Hints(nil) != nil {
		t.Error("an error with no Error has hints")
	}
}

func TestPrint(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		code   int
		stderr string
	}{
		{"nil", nil, 0, ""},
		{"plain", errSentinel, 1, "zap-x: sentinel\n"},
		{"hints", BadInput(errSentinel, "fix it", "or this"), 2, "zap-x: sentinel\nhint: fix it\nhint: or this\n"},
		{"wrapped", fmt.Errorf("outer: %w", InWorld(errSentinel, "h")), 1, "zap-x: outer: sentinel\nhint: h\n"},
		{"reported", Reported(2), 2, ""},
		{"reported wrapped", fmt.Errorf("x: %w", Reported(1)), 1, ""},
	} {
		var b bytes.Buffer
		if got := Print(&b, "zap-x", tc.err); got != tc.code || b.String() != tc.stderr {
			t.Errorf("%s: code %d stderr %q, want %d %q", tc.name, got, b.String(), tc.code, tc.stderr)
		}
	}
}

// TestWrite checks the voice: the message's further lines indented under
// it, a hint's too, and what could move the cursor or hide text spelt out.
func TestWrite(t *testing.T) {
	var b bytes.Buffer
	Write(&b, "zap-x", "two problems:\n\ta\x1b[2Jb\nc", "one\ntwo", "bidi \u202e")
	want := "zap-x: two problems:\n      a<U+001B>[2Jb\n  c\nhint: one\n  two\nhint: bidi <U+202E>\n"
	if b.String() != want {
		t.Errorf("Write:\n%q\nwant\n%q", b.String(), want)
	}
}
