package proctree

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// TestDescendants checks that a child and its grandchild are found below
// this process, and nothing below a process with none.
func TestDescendants(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var got []int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = Descendants(cmd.Process.Pid); len(got) == 1 {
			break
		}
	}
	if len(got) != 1 {
		t.Fatalf("below sh: %v, want its sleep", got)
	}
	if mine := Descendants(os.Getpid()); !slices.Contains(mine, cmd.Process.Pid) || !slices.Contains(mine, got[0]) {
		t.Errorf("below the test: %v, want %d and %d", mine, cmd.Process.Pid, got[0])
	}
	if none := Descendants(got[0]); len(none) != 0 {
		t.Errorf("below sleep: %v", none)
	}
}

// TestProc checks that a recorded process is alive while it runs, not once
// it is gone, and never under a start time that isn't its own (a PID the
// machine gave to another process).
func TestProc(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	p := Of(cmd.Process.Pid)
	if !p.Alive() {
		t.Fatalf("%+v: not alive while it runs", p)
	}
	if !Self().Alive() {
		t.Error("the test itself: not alive")
	}
	if other := (Proc{PID: p.PID, Start: p.Start + "0"}); other.Alive() {
		t.Errorf("%+v: alive under another start time", other)
	}
	p.Kill()
	cmd.Wait()
	if p.Alive() {
		t.Errorf("%+v: alive once killed and reaped", p)
	}
	if (Proc{}).Alive() || Of(-1).Alive() {
		t.Error("no process: alive")
	}
}
