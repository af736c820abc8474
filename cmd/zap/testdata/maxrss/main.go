// Command maxrss runs its arguments as a command, stdin, stdout and stderr
// passed through, exits with its exit code, and writes the command's peak
// resident memory in kB to the file $MAXRSS_OUT.
//
// It is what TestDocumentLimitsMemory measures through: a child's ru_maxrss
// counts its parent's resident memory at the fork (Linux records the old
// address space's high-water mark at exec, and Go starts a child with
// CLONE_VM), so a child of the test binary itself would be charged with the
// test binary's memory. This program is small, so what it adds is small.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: maxrss COMMAND [ARG...]")
		os.Exit(125)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(125)
	}
	kb := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	if err := os.WriteFile(os.Getenv("MAXRSS_OUT"), []byte(strconv.FormatInt(kb, 10)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(125)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
