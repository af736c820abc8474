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
