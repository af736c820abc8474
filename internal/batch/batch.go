// Package batch turns one lane's detection queries into one POSIX shell
// script, and the script's output back into one answer per query.
//
// The script runs under dash, bash or BusyBox ash, read from stdin. It is one
// brace group reading /dev/null, so the shell parses all of it before any of
// it runs and nothing a probe runs can read the rest. It checks first that
// the target has every tool it needs, then runs each query's probe in turn,
// but for Zap's own groups of path reads, which run two at a time.
// Every probe runs in a session of its own (setsid) under timeout, which
// stops it with SIGTERM at its limit and SIGKILL a second later; once it has
// exited, whatever it left running in its process group is killed (BusyBox's
// timeout signals only its command), so nothing it started outlives it. Zap's own
// probes (stat, readlink, sha512sum) run under LC_ALL=C; an operator's
// command runs in the target's own locale.
//
// Framing. Each line the script itself writes starts with a marker holding a
// random nonce made for the batch. A probe's output never reaches the stream
// as it is: it goes through base64, so it arrives as lines of base64's
// alphabet, which can't hold a marker (each has a space), whatever bytes
// (newlines, NULs, a guessed marker) the probe printed. Its exit status is
// written apart, on the marker line that closes its answer, by the batch's
// shell. The stream is:
//
//	<marker> H              the batch started
//	<marker> M <tool>       a tool is missing; nothing else follows
//	<marker> B <i>          query i's output follows, in base64
//	<marker> E <i> <status> query i's probe exited with status
//	<marker> Z              the batch ended
//
// Parse reads it strictly: anything but a one-for-one run of answers ending
// in the end marker fails the whole batch, so every resource with a read in
// it holds. An operator's command writes nothing to the stream: its check's
// output is discarded, and its exit status comes back as the output of the
// constant wrapper that ran it, so a command killed at its limit (no report)
// reads as timed out. One of Zap's own probes (a package manager's query, an
// account lookup) is a command whose stdout does come back, in base64 like
// a path read's, under LC_ALL=C; its exit status is its answer's, and a probe
// stopped at its limit reads as timed out.
package batch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/vocab"
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
	for u := 0; u < len(units); u++ {
		un := units[u]
		cmd, err := b.probe(un)
		if err != nil {
			return nil, fmt.Errorf("query %d: %w", un.reads[0], err)
		}
		if un.op != opPaths || u+1 == len(units) || units[u+1].op != opPaths {
			s.WriteString(framed(u, cmd, 4))
			continue
		}
		// Two groups of path reads run at once: the second in the
		// background, its whole framed answer kept in the capture of a
		// command substitution while the first writes its own straight
		// out; the second's follows once both have ended, so the answers
		// keep their order.
		next, err := b.probe(units[u+1])
		if err != nil {
			return nil, fmt.Errorf("query %d: %w", units[u+1].reads[0], err)
		}
		fmt.Fprintf(&s, "r=$( { %s} 5>&1 &\n{ %s} >&4\nwait )\n", framed(u+1, next, 5), framed(u, cmd, 4))
		s.WriteString("printf '%s\\n' \"$r\"\n")
		u++
	}
	s.WriteString("printf '%s Z\\n' \"$N\"\n")
	s.WriteString("exit 0\n")
	s.WriteString("} </dev/null\n")
	b.Script = s.String()
	return b, nil
}

// framed is the script that runs cmd as unit u's probe and writes its
// framed answer (the B line, the probe's output in base64, the E line with
// its exit status) to descriptor out. base64 rather than od's hex: less
// than half the bytes on the way back (for 2,000 files' reads 1.1 MB of
// hex, 0.49 MB of base64) and a fifth of the CPU on the target; every
// target has it, since a put decodes its content with it.
//
// The probe runs in the background only so that its pid, which setsid made
// its session's and process group's, is known: once it has exited,
// whatever it left running in its group (BusyBox's timeout signals only its
// command, not the group) is killed, so nothing holds the pipe to base64
// open.
// The probe gets none of the batch's own descriptors (3, 4 and 5).
func framed(u int, cmd string, out int) string {
	return fmt.Sprintf("printf '%%s B %d\\n' \"$N\" >&%d\n", u, out) +
		fmt.Sprintf("s=$( { { %s 3>&- 4>&- 5>&- & p=$!; wait \"$p\"; echo \"$?\" >&3; kill -9 \"-$p\"; } 2>/dev/null | base64 >&%d; } 3>&1 )\n", cmd, out) +
		fmt.Sprintf("printf '%%s E %d %%s\\n' \"$N\" \"$s\" >&%d\n", u, out)
}

// Tools lists the commands a batch of queries needs on the target.
func Tools(queries []detect.Query) []string {
	tools := []string{"timeout", "base64", "tr", "head", "cat", "stat", "readlink", "setsid"}
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

// Zap's own path reads (type, stat and content) run in groups: each group
// is one constant script, pathScript, run as sh -c with the group's paths as
// its arguments, in one session under one timeout, its output through one
// base64. Every read of one path in a group (a file's type, stat and content)
// is answered from one pass over it. A group starts no process per path: it
// tests each path with the shell's own test, reads all the paths there with
// one lstat, opens the regular files it reads the content of seven at a
// time (each seven in a subshell of its own) and reads what it opened with
// one stat and one sha512sum through the descriptors.
const (
	// groupPaths is how many paths share a group.
	groupPaths = 1024
	// groupBytes bounds the bytes of a group's paths, which travel as the
	// arguments of one sh -c, well below any ARG_MAX.
	groupBytes = 128 << 10
)

// pathScript reads its arguments: D, then paths, the first D of them the
// ones whose content is read. It prints
//
//   - a line of one letter per path: m (nothing there: neither test -h nor
//     test -e passes), l (a symbolic link that leads nowhere), L (a
//     symbolic link to something there), e (anything else there);
//   - one lstat line per path there, in order: "<raw mode in hex> <owner>
//     <group>" (one stat);
//   - one followed stat line per L path, in order: "<raw mode in hex>" (one
//     stat -L, only when there is one);
//   - for each seven (or fewer) of the first D paths opened together, a
//     line "o <pid> <n>:<k>...": the process that opened them, and each
//     path's number (from 1) and the descriptor it is open on; and, when an
//     open was refused, a line "d <n>..." of those paths;
//   - one line per descriptor opened, in order: "<raw mode> <links>" (one
//     stat -L through them all); and for each that is a regular file of one
//     link, its sha512sum line, naming it /proc/<pid>/fd/<k> (one sha512sum
//     through them).
//
// Where the target has a bash that names descriptors past 9 ({v}), the
// windows run under bash -p (no startup file, no function or option from
// the environment). Whether it can is the first thing that bash tries: one
// that can't (an older bash) ends with exec's 126 or 127 (or 97) before it
// prints anything, and the windows go as they do elsewhere, so the check
// costs no process of its own. Each window of up to W paths (at most 1,000, and 64
// fewer than the descriptors a process may open) is opened in one subshell
// of bash on descriptors of bash's choosing, one "o <pid> <n>:<k>..." line
// for all of them (bash takes a third of the work the subshells do), and
// the window ends in bashWindowEnd, which skips bash's slow walk over the
// descriptors when every one of them is a regular file of one link.
// Elsewhere (dash, BusyBox, an older bash) a shell opens at most seven
// descriptors (3 to 9), so it opens seven, then seven more in a subshell of
// its own, and so on; each subshell names its descriptors by its own pid,
// which cd -P /proc/self reads without a process. A chain of subshells
// grows dearer with its depth, so there the content reads go in windows of
// 252 paths, each a chain of at most 36 subshells. Either way a window ends
// in its own stat and sha512sum: its "o" and "d" lines, then its stat
// lines, then its sums. Nothing the script prints comes from
// a path or a file. Exit 3 is a group whose reads failed or don't line up
// (a path changed between them).
const pathScript = `IFS=' 	
'
set -f
D=$1 W=252
shift
x= a= b= i=0 all=1
for p; do
i=$((i+1))
if [ -h "$p" ]; then
if [ -e "$p" ]; then x="${x}L" b="$b \"\${$i}\""; else x="${x}l"; fi
a="$a \"\${$i}\""
elif [ -e "$p" ]; then x="${x}e" a="$a \"\${$i}\""
else x="${x}m" all=0
fi
done
echo "$x"
if [ "$all" = 1 ]; then stat -c '%f %U %G' -- "$@" || exit 3
elif [ -n "$a" ]; then eval "stat -c '%f %U %G' -- $a" || exit 3
fi
if [ -n "$b" ]; then eval "stat -L -c %f -- $b" || exit 3; fi
B='exec {v}</dev/null || exit 97
exec {v}<&-
D=$1 W=$2
shift 2
set -f
i=0
while [ "$i" -lt "$D" ]; do
e=$((i+W))
[ "$e" -le "$D" ] || e=$D
(
q=$BASHPID r= d= f=
for p in "${@:1:$((e-i))}"; do
((++i))
[[ -f $p && ! -h $p ]] || continue
if command exec {v}<"$p"; then r+=" $i:$v" f+=" /proc/$q/fd/$v"; else d+=" $i"; fi
done
echo "o $q$r"
[ -z "$d" ] || echo "d$d"
` + bashWindowEnd + `
) || exit 3
shift $((e-i))
i=$e
done
exit 0'
L='cd -P /proc/self || exit 3
q=${PWD##*/} k=3 r= d=
while [ "$i" -lt "$e" ] && [ "$k" -le 9 ]; do
i=$((i+1)) p=$1
shift
[ -f "$p" ] && ! [ -h "$p" ] || continue
if case $k in
3) command exec 3<"$p";;
4) command exec 4<"$p";;
5) command exec 5<"$p";;
6) command exec 6<"$p";;
7) command exec 7<"$p";;
8) command exec 8<"$p";;
9) command exec 9<"$p";;
esac
then r="$r $i:$k" f="$f /proc/$q/fd/$k" k=$((k+1))
else d="$d $i"
fi
done
echo "o $q$r"
[ -z "$d" ] || echo "d$d"
if [ "$i" -lt "$e" ]; then (eval "$L"); exit $?; fi
` + windowEnd + `'
x= a= b= i=0
exec 2>/dev/null
[ "$D" -gt 0 ] || exit 0
if command -v bash >/dev/null; then
n=$(ulimit -n)
case $n in unlimited) n=1064;; esac
if [ "$n" -ge 128 ] 2>/dev/null; then
[ "$n" -le 1064 ] || n=1064
bash -p -c "$B" bash "$D" $((n-64)) "$@"
n=$?
case $n in 97|126|127) ;; *) exit "$n";; esac
fi
fi
while [ "$i" -lt "$D" ]; do
e=$((i+W))
[ "$e" -le "$D" ] || e=$D
(f=; eval "$L") || exit 3
shift $((e-i))
i=$e
done
exit 0`

// windowEnd is how a window of pathScript ends, its descriptors open in f:
// one stat -L through them all, its lines printed, and one sha512sum of
// those that are regular files of one link. Exit 3 when the stat fails or
// its lines don't match the descriptors.
const windowEnd = windowStat + `
set -- $o
` + windowWalk + `
` + windowSum

// windowStat reads the window's descriptors, one stat -L through them all,
// and prints its lines.
const windowStat = `[ -n "$f" ] || exit 0
o=$(stat -L -c "%f %h" $f) || exit 3
echo "$o"`

// windowWalk sets s to the descriptors of f whose stat line, in the
// positional parameters, reads a regular file of one link; exit 3 when
// the lines don't match the descriptors.
const windowWalk = `s=
for g in $f; do
[ "$#" -ge 2 ] || exit 3
case "$1 $2" in "8"???" 1") s="$s $g";; esac
shift 2
done
[ "$#" = 0 ] || exit 3`

// windowSum sums the descriptors windowWalk picked.
const windowSum = `if [ -n "$s" ]; then sha512sum $s || exit 3; fi
exit 0`

// bashWindowEnd is windowEnd under bash, which walks a list word by word
// at a few microseconds a word: when every descriptor's stat line reads
// "8xxx 1" (a regular file of one link, the common case), all of them are
// summed without a walk; otherwise the walk picks them as windowEnd's does.
// Taking out every "8xxx 1" (8 and three hex digits, a space, 1) and the
// newlines leaves nothing only when each line is exactly that: a mode is
// at most four hex digits, only a regular file's begins with 8, and a
// line of another type, or of more links ("81a4 12"), leaves a character.
const bashWindowEnd = windowStat + `
x=${o//8[0-9a-f][0-9a-f][0-9a-f] 1/}
x=${x//"
"/}
set -- $o
if [ -z "$x" ]; then
g=($f)
[ "$#" = "$((${#g[@]}*2))" ] || exit 3
s=$f
else
` + windowWalk + `
fi
` + windowSum

// commandWrapper runs an operator's script, read on its stdin, in a shell
// whose output is discarded, and prints its exit status: the report. A
// shell killed at the limit prints none.
const commandWrapper = `sh -s >/dev/null 2>&1; echo "$?"`

// unit is one framed answer in a batch's output: one read, or a group of
// path reads answered together.
type unit struct {
	op    detect.Op // opPaths for a group
	reads []int
	// paths are a group's paths, those whose content is read first.
	paths []pathReads
	// digests is how many of paths have their content read.
	digests int
	// budget is the most bytes a text group reads (textScript).
	budget int64
}

// opPaths is the op of a unit that is a group of path reads.
const opPaths detect.Op = "paths"

// opTexts is the op of a unit that is a group of text reads (textScript).
const opTexts detect.Op = "texts"

// pathReads is one path of a group and the reads of it, by query index.
type pathReads struct {
	path              string
	types, stats, sha []int
}

// grouped reports whether op is one of the path reads a group answers.
func grouped(op detect.Op) bool {
	return op == detect.OpType || op == detect.OpStat || op == detect.OpDigest
}

// plan puts the queries into units: each command, probe, readlink and
// bounded content read a unit of its own, the type, stat and digest reads
// in groups, every read of one path in the group that has the path, and
// the groups together at the place of the first group's first read.
func plan(queries []detect.Query) ([]unit, error) {
	var units, texts []unit
	open, size := -1, 0
	var at map[string]int
	textSize := 0
	for i, q := range queries {
		switch q.Op {
		case detect.OpType, detect.OpStat, detect.OpReadlink, detect.OpDigest, detect.OpContent, detect.OpText:
			if q.Path == "" {
				return nil, fmt.Errorf("query %d: no path to read", i)
			}
			if strings.ContainsAny(q.Path, "\x00") {
				return nil, fmt.Errorf("query %d: a path with a NUL", i)
			}
			if !strings.HasPrefix(q.Path, "/") {
				return nil, fmt.Errorf("query %d: a path that isn't absolute", i)
			}
		}
		if q.Op == detect.OpText {
			// Text reads go in groups of their own, after every other
			// read: they feed no verdict.
			n := len(texts) - 1
			if n < 0 || len(texts[n].reads) >= groupPaths || textSize+len(q.Path) > groupBytes {
				texts, textSize, n = append(texts, unit{op: opTexts}), 0, n+1
			}
			texts[n].reads = append(texts[n].reads, i)
			textSize += len(q.Path) + 1
			continue
		}
		if !grouped(q.Op) {
			units = append(units, unit{op: q.Op, reads: []int{i}})
			continue
		}
		k, ok := -1, false
		if open >= 0 {
			k, ok = at[q.Path]
		}
		if !ok {
			if open < 0 || len(units[open].paths) >= groupPaths || size+len(q.Path) > groupBytes {
				open, size, at = len(units), 0, map[string]int{}
				units = append(units, unit{op: opPaths})
			}
			k = len(units[open].paths)
			at[q.Path] = k
			size += len(q.Path) + 1
			units[open].paths = append(units[open].paths, pathReads{path: q.Path})
		}
		un := &units[open]
		un.reads = append(un.reads, i)
		pr := &un.paths[k]
		switch q.Op {
		case detect.OpType:
			pr.types = append(pr.types, i)
		case detect.OpStat:
			pr.stats = append(pr.stats, i)
		case detect.OpDigest:
			pr.sha = append(pr.sha, i)
		}
	}
	// The paths whose content is read go first: the script reads the
	// content of its first D paths.
	for u := range units {
		un := &units[u]
		if un.op != opPaths {
			continue
		}
		sort.SliceStable(un.paths, func(a, b int) bool { return len(un.paths[a].sha) > 0 && len(un.paths[b].sha) == 0 })
		for _, p := range un.paths {
			if len(p.sha) > 0 {
				un.digests++
			}
		}
	}
	for k := range texts {
		// The batch's budget is shared out, so that all its text reads
		// together read at most detect.TextBudget bytes.
		texts[k].budget = detect.TextBudget / int64(len(texts))
	}
	return append(together(units), texts...), nil
}

// together moves every group of path reads up to the place of the first,
// in their order, so that the script can run them two at a time. A group
// already reads, at the place of its first read, paths whose reads come
// later; the groups are Zap's own reads and change nothing, so moving them
// up changes no answer a probe or command between them gives.
func together(units []unit) []unit {
	first := -1
	var groups, rest []unit
	for _, un := range units {
		if un.op != opPaths {
			rest = append(rest, un)
			continue
		}
		if first < 0 {
			first = len(rest)
		}
		groups = append(groups, un)
	}
	if len(groups) < 2 {
		return units
	}
	out := make([]unit, 0, len(units))
	out = append(out, rest[:first]...)
	out = append(out, groups...)
	return append(out, rest[first:]...)
}

// probe is the shell command that answers un on its stdout.
func (b *Batch) probe(un unit) (string, error) {
	run := "LC_ALL=C setsid timeout -k 1 " + strconv.Itoa(PathTimeout) + " "
	switch un.op {
	case opPaths:
		var s strings.Builder
		for _, p := range un.paths {
			s.WriteString(" " + vocab.Quote(p.path))
		}
		run := "LC_ALL=C setsid timeout -k 1 " + strconv.Itoa(PathTimeout*max(1, un.digests)) + " "
		return run + "sh -c " + vocab.Quote(pathScript) + " sh " + strconv.Itoa(un.digests) + s.String(), nil
	case detect.OpReadlink:
		return run + "readlink -- " + vocab.Quote(b.Queries[un.reads[0]].Path), nil
	case detect.OpContent:
		return contentProbe(b.Queries[un.reads[0]])
	case opTexts:
		return b.textProbe(un)
	case detect.OpCommand:
		script, t, err := commandScript(b.Queries[un.reads[0]].Command, "command", vocab.CheckTimeout)
		if err != nil {
			return "", err
		}
		return script + " | setsid timeout -k 1 " + strconv.Itoa(t) + " sh -c " + vocab.Quote(commandWrapper), nil
	case detect.OpProbe:
		script, t, err := commandScript(b.Queries[un.reads[0]].Command, "probe", vocab.ProbeTimeout)
		if err != nil {
			return "", err
		}
		return script + " | LC_ALL=C setsid timeout -k 1 " + strconv.Itoa(t) + " sh", nil
	}
	return "", fmt.Errorf("unknown read %q", un.op)
}

// commandScript is the printf that writes the script of a command or a
// probe (as what names it) c for a shell's stdin, and its time limit in
// seconds: its own, else def. There must be a c, and no NUL in its text.
func commandScript(c *detect.Command, what string, def int) (printf string, limit int, err error) {
	if c == nil {
		return "", 0, errors.New("no " + what + " to run")
	}
	if strings.Contains(c.Text, "\x00") {
		return "", 0, errors.New("a " + what + " with a NUL")
	}
	limit = c.Timeout
	if limit <= 0 {
		limit = def
	}
	return "printf '%s' " + vocab.Quote(c.Script()), limit, nil
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
				t = vocab.CheckTimeout
			}
		}
		if q.Op == detect.OpProbe && q.Command != nil {
			t = q.Command.Timeout
			if t <= 0 {
				t = vocab.ProbeTimeout
			}
		}
		d += time.Duration(t+1) * time.Second
	}
	return d
}
