package stages

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// heldStage is a Runner whose zap-detect appends what it reads to the file
// it returns.
func heldStage(t *testing.T) (*Runner, string) {
	t.Helper()
	dir := t.TempDir()
	read := filepath.Join(dir, "read")
	script := "#!/bin/sh\nexec cat >>'" + read + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "zap-detect"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := New(dir, []string{"PATH=/usr/bin:/bin"}, &bytes.Buffer{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, read
}

// A stage started with its input held back reads nothing until it is fed:
// stopped unfed, it read nothing, though it ran long enough to; fed and
// taken, it read the input whole.
func TestStartHeld(t *testing.T) {
	input := []byte(`{"format":"zap.declaration/1"}` + "\n")
	s, read := heldStage(t)
	e := s.StartHeld(context.Background(), "zap-detect", input, "", "--x")
	// The shell opens the file before cat reads: the stage is running.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(read); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatal("the held stage didn't start")
		}
	}
	time.Sleep(100 * time.Millisecond)
	e.Stop()
	if got, err := os.ReadFile(read); err != nil || len(got) != 0 {
		t.Fatalf("a stage stopped unfed read %q (%v)", got, err)
	}

	s, read = heldStage(t)
	e = s.StartHeld(context.Background(), "zap-detect", input, "", "--x")
	e.Feed()
	if _, err := s.RunOrTake(context.Background(), e, "zap-detect", input, "--x"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(read); err != nil || !bytes.Equal(got, input) {
		t.Fatalf("a fed stage read %q (%v), not its input", got, err)
	}

	// Taken unfed, it is fed: it runs on the input zap would give it.
	s, read = heldStage(t)
	e = s.StartHeld(context.Background(), "zap-detect", input, "", "--x")
	if _, err := s.RunOrTake(context.Background(), e, "zap-detect", input, "--x"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(read); err != nil || !bytes.Equal(got, input) {
		t.Fatalf("a stage taken unfed read %q (%v), not its input", got, err)
	}
}
