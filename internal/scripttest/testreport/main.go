// Command testreport reads `go test -json` on its stdin, as make test runs
// it, and prints what a plain `go test` would: every failed test's output
// and the package lines (ok, FAIL, no test files) as they come. At the end
// it prints the test tiers (internal/scripttest.Tiers), then every test
// that skipped, with its reason, one a line.
//
// It exits 1 when go test failed (a failed test, a package that didn't
// build, or the exit status in -status not 0 or missing), and, as root
// with CI=true (the machine .ci/run prepares), on any skip that isn't
// one of scripttest.AcceptedSkips, each documented in docs/testing.md.
//
//	go test -json ./... | testreport [-json FILE] [-status FILE]
//
// -json copies the stream, as read, into FILE; -status names the file
// make writes go test's exit status into once it ends.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/zap-go/zap/internal/scripttest"
)

func main() {
	jsonOut := flag.String("json", "", "copy the go test -json stream into `FILE`")
	status := flag.String("status", "", "read go test's exit status from `FILE` at the end")
	flag.Parse()
	var in io.Reader = os.Stdin
	if *jsonOut != "" {
		f, err := os.Create(*jsonOut)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testreport: %v\n", err)
			os.Exit(2)
		}
		defer f.Close()
		in = io.TeeReader(os.Stdin, f)
	}
	r := newReport(os.Stdout)
	if err := r.read(in); err != nil {
		fmt.Fprintf(os.Stderr, "testreport: %v\n", err)
		os.Exit(2)
	}
	scripttest.WriteTiers(os.Stdout)
	strict := os.Geteuid() == 0 && os.Getenv("CI") == "true"
	ok := r.finish(strict, readStatus(*status))
	if !ok {
		os.Exit(1)
	}
}

// readStatus reads go test's exit status from name: "" when there is no
// file to read (no -status), else its text, "missing" when it can't be
// read.
func readStatus(name string) string {
	if name == "" {
		return ""
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return "missing"
	}
	return string(b)
}
