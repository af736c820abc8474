// Command gen writes docs/kinds/, the reference pages zap doc prints
// (internal/refdoc): go generate ./internal/refdoc runs it. With -check it
// changes nothing and fails when a page isn't current, or the directory
// holds a page no name has: make pages-check runs that.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/zap-go/zap/internal/refdoc"
)

func main() {
	check := flag.Bool("check", false, "fail when a page isn't what generating makes of it; change nothing")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gen [-check] DIR")
		os.Exit(2)
	}
	stale, err := run(flag.Arg(0), *check)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if len(stale) > 0 {
		fmt.Fprintf(os.Stderr, "gen: %s not what the schema and the kinds' doc.md make: run go generate ./internal/refdoc (or make generate)\n", strings.Join(stale, ", "))
		os.Exit(1)
	}
}

// run writes (or, with check, compares) dir's pages, and returns those
// that differ under check.
func run(dir string, check bool) ([]string, error) {
	stale, err := refdoc.Sync(dir, check)
	if !check {
		return nil, err
	}
	return stale, err
}
