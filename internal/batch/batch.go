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
// reads as timed out. One of Zap's own probes (a package manager's query, an
// account lookup) is a command whose stdout does come back, in hex like a
// path read's, under LC_ALL=C; its exit status is its answer's, and a probe
// stopped at its limit reads as timed out.
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
	units  []unit
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
	units, err := plan(queries)
	if err != nil {
		return nil, err
	}
	b.units = units
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
	for u, un := range units {
		cmd, err := b.probe(un)
		if err != nil {
			return nil, fmt.Errorf("query %d: %w", un.reads[0], err)
		}
		fmt.Fprintf(&s, "printf '%%s B %d\\n' \"$N\"\n", u)
		fmt.Fprintf(&s, "s=$( { { %s 3>&- 4>&-; echo \"$?\" >&3; } 2>/dev/null | od -An -v -tx1 >&4; } 3>&1 )\n", cmd)
		fmt.Fprintf(&s, "printf '%%s E %d %%s\\n' \"$N\" \"$s\"\n", u)
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

// Zap's own path reads run in groups: each group is one constant script,
// run as sh -c with the group's paths as its arguments, in one session under
// one timeout, its output through one od. A group's script starts no process
// per path: it tests each path with the shell's own test, then reads all the
// paths there with one stat (and a content group with one stat through its
// descriptors and one sha512sum).
const (
	// statGroup is how many type or stat reads share a group.
	statGroup = 1024
	// digestGroup is how many content reads share a group. Its limit is
	// PathTimeout for each of them, so reading large files together takes
	// no more of a limit than reading them one by one did.
	digestGroup = 256
)

// statScript reads the type, or the lstat, of its arguments: a line of one
// digit per path, 1 for a path there (TEST, the shell's own test, passes)
// and 0 for one that isn't, then one stat over the paths there, one line
// each, in order, and stat's exit status.
const statScript = `a= i=0
for p; do
i=$((i+1))
if TEST; then a="$a \"\${$i}\""; printf 1; else printf 0; fi
done
echo
[ -z "$a" ] || eval "exec stat FORMAT -- $a"`

// typeTest and statTest are statScript's TEST: a type read follows a
// symbolic link, a stat read doesn't.
const (
	typeTest = `[ -e "$p" ]`
	statTest = `[ -h "$p" ] || [ -e "$p" ]`
)

// digestScript is the content read of its arguments. It lstat's every path
// there in one stat and opens only a regular file, each on a descriptor of
// its own. A shell opens at most seven (3 to 9), so it opens seven, then
// seven more in a subshell of its own, and so on, each subshell naming its
// descriptors /proc/<its pid>/fd/<n> (its pid read from /proc/self/stat by
// the shell's own read). The last one reads the type and link count of
// everything opened, through those descriptors, in one stat, and the
// regular files with one link in one sha512sum, through their descriptors
// too. It prints records of the path's number (from 1) and what was read:
// "<n> m" (not there), "<n> t <mode>" (the lstat's raw mode in hex), "<n> d"
// (a regular file the open was refused), "<n> o <mode> <links>" (what it
// opened) and "<n> s <sha512>". Nothing it prints comes from a path or a
// file. Exit 3 is a group whose reads don't line up (a path changed between
// its reads, or a read failed).
const digestScript = `level() {
read pid rest </proc/self/stat || exit 3
k=2
while [ "$#" -gt 0 ] && [ "$k" -lt 9 ]; do
i=$1; shift
k=$((k+1))
eval "p=\$p$i"
if eval "command exec $k<\"\$p\"" 2>/dev/null; then f="$f /proc/$pid/fd/$k"; g="$g $i"; eval "d$i=/proc/$pid/fd/$k"; else echo "$i d"; fi
done
if [ "$#" -gt 0 ]; then (level "$@"); exit $?; fi
[ -n "$f" ] || exit 0
o=$(stat -L -c '%f %h' $f) || exit 3
IFS='
'
set -- $o
IFS=' '
s= h=
for j in $g; do
[ "$#" -gt 0 ] || exit 3
echo "$j o $1"
case $1 in "8"???" 1") eval "s=\"\$s \$d$j\""; h="$h $j";; esac
shift
done
[ "$#" = 0 ] || exit 3
[ -n "$s" ] || exit 0
r=$(sha512sum $s) || exit 3
IFS=' 
'
set -- $r
IFS=' '
for j in $h; do
[ "$#" -ge 2 ] || exit 3
echo "$j s $1"
shift 2
done
[ "$#" = 0 ] || exit 3
exit 0
}
i=0 a=
for p; do
i=$((i+1)); eval "p$i=\$p"
if [ -h "$p" ] || [ -e "$p" ]; then eval "x$i=1"; a="$a \"\${$i}\""; else eval "x$i=0"; fi
done
n=$i t=
if [ -n "$a" ]; then t=$(eval "stat -c %f -- $a") || exit 3; fi
set -f
IFS='
'
set -- $t
IFS=' '
i=0 e=
while [ "$i" -lt "$n" ]; do
i=$((i+1))
eval "x=\$x$i"
if [ "$x" = 0 ]; then echo "$i m"; continue; fi
[ "$#" -gt 0 ] || exit 3
echo "$i t $1"
case $1 in 8???) e="$e $i";; esac
shift
done
[ "$#" = 0 ] || exit 3
f= g=
level $e`

// commandWrapper runs an operator's script, read on its stdin, in a shell
// whose output is discarded, and prints its exit status: the report. A
// shell killed at the limit prints none.
const commandWrapper = `sh -s >/dev/null 2>&1; echo "$?"`

// unit is one framed answer in a batch's output: one read, or a group of
// path reads of one kind answered together.
type unit struct {
	op    detect.Op
	reads []int
}

// plan puts the queries into units: each command and readlink a unit of
// its own, the type, stat and content reads in groups, each group at the
// place of its first read.
func plan(queries []detect.Query) ([]unit, error) {
	var units []unit
	open := map[detect.Op]int{}
	for i, q := range queries {
		switch q.Op {
		case detect.OpType, detect.OpStat, detect.OpReadlink, detect.OpDigest:
			if q.Path == "" {
				return nil, fmt.Errorf("query %d: no path to read", i)
			}
			if strings.ContainsAny(q.Path, "\x00") {
				return nil, fmt.Errorf("query %d: a path with a NUL", i)
			}
		}
		size := 0
		switch q.Op {
		case detect.OpType, detect.OpStat:
			size = statGroup
		case detect.OpDigest:
			size = digestGroup
		}
		if size == 0 {
			units = append(units, unit{op: q.Op, reads: []int{i}})
			continue
		}
		if u, ok := open[q.Op]; ok && len(units[u].reads) < size {
			units[u].reads = append(units[u].reads, i)
			continue
		}
		open[q.Op] = len(units)
		units = append(units, unit{op: q.Op, reads: []int{i}})
	}
	return units, nil
}

// probe is the shell command that answers un on its stdout.
func (b *Batch) probe(un unit) (string, error) {
	run := "LC_ALL=C setsid timeout -k 1 " + strconv.Itoa(PathTimeout) + " "
	paths := func() string {
		var s strings.Builder
		for _, i := range un.reads {
			s.WriteString(" " + detect.Quote(b.Queries[i].Path))
		}
		return s.String()
	}
	switch un.op {
	case detect.OpType:
		script := strings.NewReplacer("TEST", typeTest, "FORMAT", "-L -c %f").Replace(statScript)
		return run + "sh -c " + detect.Quote(script) + " sh" + paths(), nil
	case detect.OpStat:
		script := strings.NewReplacer("TEST", statTest, "FORMAT", "-c '%f %U %G'").Replace(statScript)
		return run + "sh -c " + detect.Quote(script) + " sh" + paths(), nil
	case detect.OpDigest:
		run := "LC_ALL=C setsid timeout -k 1 " + strconv.Itoa(PathTimeout*len(un.reads)) + " "
		return run + "sh -c " + detect.Quote(digestScript) + " sh" + paths(), nil
	case detect.OpReadlink:
		return run + "readlink -- " + detect.Quote(b.Queries[un.reads[0]].Path), nil
	case detect.OpCommand:
		c := b.Queries[un.reads[0]].Command
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
	if un.op == detect.OpProbe {
		c := b.Queries[un.reads[0]].Command
		if c == nil {
			return "", errors.New("no probe to run")
		}
		if strings.Contains(c.Text, "\x00") {
			return "", errors.New("a probe with a NUL")
		}
		t := c.Timeout
		if t <= 0 {
			t = detect.ProbeTimeout
		}
		return "printf '%s' " + detect.Quote(c.Script()) + " | LC_ALL=C setsid timeout -k 1 " + strconv.Itoa(t) + " sh", nil
	}
	return "", fmt.Errorf("unknown read %q", un.op)
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
		if q.Op == detect.OpProbe && q.Command != nil {
			t = q.Command.Timeout
			if t <= 0 {
				t = detect.ProbeTimeout
			}
		}
		d += time.Duration(t+1) * time.Second
	}
	return d
}
