// Command gen writes internal/schema/docs.json, the schema's words read
// from the Go doc comments (internal/schema/docsrc): go generate
// ./internal/schema runs it. With -check it changes nothing and fails when
// the file isn't current: make types-check runs that.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/zap-go/zap/internal/schema/docsrc"
)

func main() {
	check := flag.Bool("check", false, "fail when the file isn't what generating makes of it; change nothing")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gen [-check] docs.json")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *check); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(path string, check bool) error {
	root, err := docsrc.Root()
	if err != nil {
		return err
	}
	out, err := docsrc.Generate(root)
	if err != nil {
		return err
	}
	// A missing file is written, and is stale under -check.
	src, _ := os.ReadFile(path)
	if bytes.Equal(out, src) {
		return nil
	}
	if check {
		return fmt.Errorf("%s is not what the Go doc comments make of it: run go generate ./internal/schema (or make generate)", path)
	}
	return os.WriteFile(path, out, 0o644)
}
