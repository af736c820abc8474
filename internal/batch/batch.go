// Package batch turns one lane's detection queries into one POSIX shell
// script, and the script's output back into one answer per query.
//
// The script runs under dash, bash or BusyBox ash, read from stdin. It is one
// brace group reading /dev/null, so the shell parses all of it before any of
// it runs and nothing a probe runs can read the rest. It checks first that
// the target has every tool it needs, then runs each query's probe in turn.
// Every probe runs in a session of its own (setsid) under timeout, which
// stops it with SIGTERM at its limit and SIGKILL a second later. Zap's own
// probes (stat, readlink, sha512sum) run under LC_ALL=C; an operator's
// command runs in the target's own locale.
//
// Framing. Each line the script itself writes starts with a marker holding a
// random nonce made for the batch. A probe's output never reaches the stream
// as it is: it goes through od, so it arrives as lines of hex digits that
// can't hold a marker, whatever bytes (newlines, NULs, a guessed marker) the
// probe printed. Its exit status is written apart, on the marker line that
// closes its answer, by the batch's shell. The stream is:
//
//	<marker> H              the batch started
//	<marker> M <tool>       a tool is missing; nothing else follows
//	<marker> B <i>          query i's output follows, in hex
//	<marker> E <i> <status> query i's probe exited with status
//	<marker> Z              the batch ended
//
// Parse reads it strictly: anything but a one-for-one run of answers ending
// in the end marker fails the whole batch, so every resource with a read in
// it holds. An operator's command writes nothing to the stream: its check's
// output is discarded, and its exit status comes back as the output of the
// constant wrapper that ran it, so a command killed at its limit (no report)
// reads as timed out.
package batch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zap-go/zap/internal/detect"
)

// PathTimeout is the limit, in seconds, on one of Zap's own path reads.
const PathTimeout = 10

// OutputLimit is the most of a batch's output a host reads; past it the
// batch fails.
const OutputLimit = 64 << 20

// margin is what a batch's deadline allows beyond the sum of its probes'
// limits: connection and shell start-up, and the output's way back.
const margin = 15 * time.Second

// Batch is one lane's queries as a script.
type Batch struct {
	Queries []detect.Query
	// Script is the shell script to give a POSIX shell on stdin.
	Script string
	marker string
}

// New makes the batch of queries with a fresh random nonce.
func New(queries []detect.Query) (*Batch, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("make a nonce: %w", err)
	}
	return Build(hex.EncodeToString(b[:]), queries)
}

// Build makes the batch of queries whose markers carry nonce (hex digits).
func Build(nonce string, queries []detect.Query) (*Batch, error) {
	if nonce == "" || strings.Trim(nonce, "0123456789abcdef") != "" {
		return nil, errors.New("a nonce is lowercase hex digits")
	}
	b := &Batch{Queries: queries, marker: "ZAP" + nonce}
	var s strings.Builder
	s.WriteString("{\n")
	s.WriteString("N=" + b.marker + "\n")
	s.WriteString("exec 4>&1\n")
	s.WriteString("printf '%s H\\n' \"$N\"\n")
	s.WriteString("for t in " + strings.Join(Tools(queries), " ") + "; do\n")
	s.WriteString("\tcommand -v \"$t\" >/dev/null 2>&1 || { printf '%s M %s\\n' \"$N\" \"$t\"; exit 0; }\n")
	s.WriteString("done\n")
	if needsProc(queries) {
		s.WriteString("[ -d /proc/self/fd ] || { printf '%s M /proc/self/fd\\n' \"$N\"; exit 0; }\n")
	}
	for i, q := range queries {
		cmd, err := probe(q)
		if err != nil {
			return nil, fmt.Errorf("query %d: %w", i, err)
		}
		fmt.Fprintf(&s, "printf '%%s B %d\\n' \"$N\"\n", i)
		fmt.Fprintf(&s, "s=$( { { %s 3>&- 4>&-; echo \"$?\" >&3; } 2>/dev/null | od -An -v -tx1 >&4; } 3>&1 )\n", cmd)
		fmt.Fprintf(&s, "printf '%%s E %d %%s\\n' \"$N\" \"$s\"\n", i)
	}
	s.WriteString("printf '%s Z\\n' \"$N\"\n")
	s.WriteString("exit 0\n")
	s.WriteString("} </dev/null\n")
	b.Script = s.String()
	return b, nil
}

// Tools lists the commands a batch of queries needs on the target.
func Tools(queries []detect.Query) []string {
	tools := []string{"timeout", "od", "tr", "head", "cat", "stat", "readlink", "setsid"}
	digest, command := false, false
	for _, q := range queries {
		digest = digest || q.Op == detect.OpDigest
		command = command || q.Op == detect.OpCommand
	}
	if digest {
		tools = append(tools, "sha512sum")
	}
	if command {
		tools = append(tools, "sleep")
	}
	return tools
}

func needsProc(queries []detect.Query) bool {
	for _, q := range queries {
		if q.Op == detect.OpDigest {
			return true
		}
	}
	return false
}

// digestScript is the constant content read, run as sh -c with the path as
// $1. It lstat's the path (exit 1: nothing there) and opens only a regular
// file, then checks through the descriptor that what it opened is a regular
// file with one link before reading it. It prints "t <mode>" (the lstat's
// raw mode in hex), then "o <mode> <links>" of what it opened, then the
// digest. Exit 5 is a regular file the open was refused.
const digestScript = `t=$(stat -c %f -- "$1") || exit 1
printf 't %s\n' "$t"
case $t in 8???) ;; *) exit 0;; esac
{
o=$(stat -L -c '%f %h' /proc/self/fd/6) || exit 3
printf 'o %s\n' "$o"
case $o in "8"???" 1") ;; *) exit 0;; esac
sha512sum <&6 || exit 4
exit 0
} 6<"$1" || exit 5`

// commandWrapper runs an operator's script, read on its stdin, in a shell
// whose output is discarded, and prints its exit status: the report. A
// shell killed at the limit prints none.
const commandWrapper = `sh -s >/dev/null 2>&1; echo "$?"`

// probe is the shell command that answers q on its stdout.
func probe(q detect.Query) (string, error) {
	limit := strconv.Itoa(PathTimeout)
	run := "LC_ALL=C setsid timeout -k 1 " + limit + " "
	switch q.Op {
	case detect.OpType, detect.OpStat, detect.OpReadlink, detect.OpDigest:
		if q.Path == "" {
			return "", errors.New("no path to read")
		}
		if strings.ContainsAny(q.Path, "\x00") {
			return "", errors.New("a path with a NUL")
		}
	}
	p := detect.Quote(q.Path)
	switch q.Op {
	case detect.OpType:
		return run + "stat -L -c %f -- " + p, nil
	case detect.OpStat:
		return run + "stat -c '%f %U %G' -- " + p, nil
	case detect.OpReadlink:
		return run + "readlink -- " + p, nil
	case detect.OpDigest:
		return run + "sh -c " + detect.Quote(digestScript) + " sh " + p, nil
	case detect.OpCommand:
		c := q.Command
		if c == nil {
			return "", errors.New("no command to run")
		}
		if strings.Contains(c.Text, "\x00") {
			return "", errors.New("a command with a NUL")
		}
		t := c.Timeout
		if t <= 0 {
			t = detect.CheckTimeout
		}
		return "printf '%s' " + detect.Quote(c.Script()) + " | setsid timeout -k 1 " + strconv.Itoa(t) + " sh -c " + detect.Quote(commandWrapper), nil
	}
	return "", fmt.Errorf("unknown read %q", q.Op)
}

// Deadline is how long the whole batch may take: the sum of its probes'
// limits, each with the second its kill waits, and a margin.
func (b *Batch) Deadline() time.Duration {
	d := margin
	for _, q := range b.Queries {
		t := PathTimeout
		if q.Op == detect.OpCommand && q.Command != nil {
			t = q.Command.Timeout
			if t <= 0 {
				t = detect.CheckTimeout
			}
		}
		d += time.Duration(t+1) * time.Second
	}
	return d
}
