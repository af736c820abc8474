// Command gen rewrites the generated declarations of a types.ts in place
// (internal/schema/tsgen): go generate ./ts runs it on ts/types.ts. With
// -check it changes nothing and fails when the file isn't current: make
// check runs that.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/zap-go/zap/internal/schema/tsgen"
)

func main() {
	check := flag.Bool("check", false, "fail when the file isn't what generating makes of it; change nothing")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gen [-check] types.ts")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *check); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(path string, check bool) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := tsgen.Generate(src)
	if err != nil || bytes.Equal(out, src) {
		return err
	}
	if check {
		return fmt.Errorf("%s is not what the schema makes of it: run go generate ./ts (or make generate)", path)
	}
	return os.WriteFile(path, out, 0o644)
}
