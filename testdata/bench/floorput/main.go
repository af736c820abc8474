// Command floorput writes the floor make bench holds zap apply --wetrun over
// SSH to (testdata/bench/ssh.sh): a shell script for ONE ssh session that
// writes N files with N sudo invocations, each the one a put of zap's runs,
// `sudo -n sh -s -- PATH MODE OWNER GROUP` reading the constant put script
// of internal/ops with its stdin inputs and the content (ops.Input,
// ops.PutScriptInput: text on a line ahead, or base64 in a here-document), exactly the bytes zap sends
// for that file. What the floor leaves out is zap's: the plan, the events,
// and whatever a step costs beyond its sudo.
//
// Usage: floorput [-hand] N DIR OWNER > floor.sh
//
// With -hand, the floor is the one a person would write instead (issue
// 16's): per file, `sudo -n sh -c 'cat > TMP && chmod && chown && mv'`
// with the content itself on stdin: no digest, no checks, six processes
// where zap's put starts about ten. It shows what zap's guarded write
// costs over an unguarded one.
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
	hand := len(args) > 0 && args[0] == "-hand"
	if hand {
		args = args[1:]
	}
	if len(args) != 3 {
		return fmt.Errorf("usage: floorput [-hand] N DIR OWNER")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 || n > 1_000_000 {
		return fmt.Errorf("the count %q is not a number from 1 to 1000000", args[0])
	}
	dir, owner := args[1], args[2]
	if hand {
		return handFloor(n, dir, owner)
	}
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
		body := ops.PutScriptInput(script.Text, p.Content, stdin...)
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

// handFloor writes the -hand floor: per file one sudo, one sh, and cat,
// chmod, chown and mv, the content on stdin as the here-document's body.
func handFloor(n int, dir, owner string) error {
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "sudo -n mkdir -p %s </dev/null || exit 1\n", vocab.Quote(dir))
	install := vocab.Quote(`cat > "$1.tmp" && chmod 644 "$1.tmp" && chown "$2" "$1.tmp" && mv -f "$1.tmp" "$1"`)
	for i := range n {
		content := strings.Repeat(fmt.Sprintf("file %d\n", i), 40)
		fmt.Fprintf(w, "sudo -n sh -c %s sh %s %s <<'%s' || exit 1\n%s%s\n", install,
			vocab.Quote(fmt.Sprintf("%s/f%d.txt", dir, i)), vocab.Quote(owner), end, content, end)
	}
	return w.Flush()
}
