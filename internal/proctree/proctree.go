// Package proctree reads the machine's process tree from /proc, for the
// test harnesses that stop what they started by PID, never by name.
package proctree

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Descendants lists the processes below pid, nearest first, as /proc shows
// them now.
func Descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The parent is the second field after the command's closing ")".
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// Proc names a process by its PID and its start time, so that a PID the
// machine has since given to another process is never taken for it: a
// record of what a test started, read back by another process (one that
// reaps what a killed test binary left), stays safe to act on.
type Proc struct {
	PID   int    `json:"pid"`
	Start string `json:"start"`
}

// Of is the process pid as it is now (a zero Start when it doesn't run).
func Of(pid int) Proc {
	start, _ := stat(pid)
	return Proc{PID: pid, Start: start}
}

// Self is the calling process.
func Self() Proc { return Of(os.Getpid()) }

// Alive reports whether the process still runs (a zombie doesn't) and is
// the one recorded.
func (p Proc) Alive() bool {
	if p.PID <= 0 || p.Start == "" {
		return false
	}
	start, state := stat(p.PID)
	return start == p.Start && state != "Z"
}

// Kill sends SIGKILL when the process is still the one recorded.
func (p Proc) Kill() {
	if p.Alive() {
		syscall.Kill(p.PID, syscall.SIGKILL)
	}
}

// stat reads a process's start time and state from /proc/PID/stat.
func stat(pid int) (start, state string) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", ""
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", ""
	}
	// After the command: the state is field 3 of stat, the start time
	// field 22.
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", ""
	}
	return f[19], f[0]
}
