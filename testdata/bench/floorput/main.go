// Command floorput writes the floor make bench holds zap apply --wetrun over
// SSH to (testdata/bench/ssh.sh): a shell script for ONE ssh session that
// writes N files with N sudo invocations, each the one a put of zap's runs,
// `sudo -n sh -s -- PATH MODE OWNER GROUP` reading the constant put script
// of internal/ops with its stdin inputs and the content (ops.Input,
// ops.PutInput) as the body of a here-document, exactly the bytes zap sends
// for that file. What the floor leaves out is zap's: the plan, the events,
// and whatever a step costs beyond its sudo.
//
// Usage: floorput N DIR OWNER > floor.sh
//
// File I is DIR/fI.txt, mode 644, holding the line "file I" 40 times (as
// testdata/bench/writes.sh declares it). The script makes DIR first
// (sudo -n mkdir -p), and stops at the first write that fails.
package main

import (
	"bufio"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/ops/asroot"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/plan"
)

// end closes each here-document; no line of a put's stdin is it (checked).
const end = "ZAP_BENCH_FLOOR_END"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "floorput:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("usage: floorput N DIR OWNER")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 || n > 1_000_000 {
		return fmt.Errorf("the count %q is not a number from 1 to 1000000", args[0])
	}
	dir, owner := args[1], args[2]
	script, ok := ops.Script(plan.OpPut)
	if !ok {
		return fmt.Errorf("internal/ops has no put script")
	}
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "sudo -n mkdir -p %s </dev/null || exit 1\n", vocab.Quote(dir))
	for i := range n {
		content := []byte(strings.Repeat(fmt.Sprintf("file %d\n", i), 40))
		sum := sha512.Sum512(content)
		p := &execute.Put{Path: fmt.Sprintf("%s/f%d.txt", dir, i), Content: content, SHA512: hex.EncodeToString(sum[:]), Mode: "644", Owner: owner}
		argv, stdin := asroot.PutArgs(p, "")
		body := ops.PutInput(ops.Input(script.Text, stdin...), p.Content)
		if strings.Contains("\n"+string(body), "\n"+end+"\n") {
			return fmt.Errorf("file %d's input holds the line %s", i, end)
		}
		w.WriteString("sudo -n " + ops.Invocation)
		for _, a := range argv {
			w.WriteString(" " + vocab.Quote(a))
		}
		fmt.Fprintf(w, " <<'%s' || exit 1\n", end)
		w.Write(body)
		w.WriteString(end + "\n")
	}
	return w.Flush()
}
