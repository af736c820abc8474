package batch

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/detect"
)

// MissingToolError is a batch the target couldn't run: it has no Tool.
type MissingToolError struct{ Tool string }

func (e *MissingToolError) Error() string {
	if e.Tool == "/proc/self/fd" {
		return "the target has no /proc/self/fd, which its content reads check what they opened through"
	}
	return fmt.Sprintf("the target has no %s, which the batch needs", e.Tool)
}

// Parse reads the batch's output into one answer per query, in order. An
// output that doesn't frame exactly one answer per query, in order, and end
// with the end marker fails as a whole; the error quotes none of it.
func (b *Batch) Parse(out []byte) ([]detect.Answer, error) {
	lines := strings.Split(string(out), "\n")
	// Whatever the login shell printed before the batch started (a noisy
	// rc file) is not the batch's.
	i := 0
	for i < len(lines) && lines[i] != b.marker+" H" {
		i++
	}
	if i == len(lines) {
		return nil, fmt.Errorf("the batch printed no start marker")
	}
	i++
	next := func() (string, bool) {
		if i >= len(lines) {
			return "", false
		}
		l := lines[i]
		i++
		return l, true
	}
	stopped := fmt.Errorf("the batch's output stopped before its end marker")
	answers := make([]detect.Answer, len(b.Queries))
	for n, un := range b.units {
		l, ok := next()
		if !ok || (i == len(lines) && l == "") {
			return nil, stopped
		}
		if rest, ok := strings.CutPrefix(l, b.marker+" M "); ok && n == 0 {
			for _, t := range append(Tools(b.Queries), "/proc/self/fd") {
				if rest == t {
					return nil, &MissingToolError{Tool: t}
				}
			}
			return nil, fmt.Errorf("the batch's output is garbled")
		}
		if l != fmt.Sprintf("%s B %d", b.marker, n) {
			return nil, layout(un.reads[0])
		}
		var data []byte
		for {
			l, ok := next()
			if !ok {
				return nil, stopped
			}
			if rest, ok := strings.CutPrefix(l, b.marker+" E "); ok {
				num, status, ok := strings.Cut(rest, " ")
				if !ok || num != strconv.Itoa(n) {
					return nil, layout(un.reads[0])
				}
				code, err := strconv.Atoi(status)
				if err != nil || code < 0 || code > 255 {
					return nil, fmt.Errorf("the batch's output is garbled")
				}
				b.answerUnit(answers, un, code, data)
				break
			}
			chunk, err := hex.DecodeString(strings.ReplaceAll(l, " ", ""))
			if err != nil {
				if strings.HasPrefix(l, b.marker+" ") {
					return nil, layout(un.reads[0])
				}
				return nil, fmt.Errorf("the batch's output is garbled")
			}
			data = append(data, chunk...)
		}
	}
	l, ok := next()
	if !ok || (i == len(lines) && l == "") {
		return nil, stopped
	}
	if l != b.marker+" Z" {
		return nil, fmt.Errorf("the batch's answers don't line up with its reads: more answers than its %d reads", len(b.Queries))
	}
	for ; i < len(lines); i++ {
		if lines[i] != "" {
			return nil, fmt.Errorf("the batch's output goes on past its end marker")
		}
	}
	return answers, nil
}

func layout(n int) error {
	return fmt.Errorf("the batch's answers don't line up with its reads: read %d has no answer of its own", n)
}

// timedOut reports whether a probe's status is timeout's for a command it
// stopped: GNU timeout's 124, or a command killed by SIGTERM or SIGKILL.
func timedOut(code int) bool { return code == 124 || code == 128+15 || code == 128+9 }

// answer turns one probe's exit status and output into its answer.
func answer(q detect.Query, code int, data []byte) detect.Answer {
	if q.Op == detect.OpCommand {
		report := strings.TrimSuffix(string(data), "\n")
		if report == "" {
			if timedOut(code) {
				return detect.Answer{Status: detect.StatusTimedOut}
			}
			return failed(fmt.Sprintf("the command's shell gave no exit status (status %d)", code))
		}
		exit, err := strconv.Atoi(report)
		if err != nil || exit < 0 || exit > 255 || strconv.Itoa(exit) != report {
			return failed("the command's exit status doesn't parse")
		}
		return detect.Answer{Status: detect.StatusOK, Exit: exit}
	}
	if q.Op == detect.OpProbe {
		switch {
		case timedOut(code):
			return detect.Answer{Status: detect.StatusTimedOut}
		case len(data) > detect.ProbeOutputLimit:
			return failed(fmt.Sprintf("the probe printed more than %d bytes", detect.ProbeOutputLimit))
		}
		return detect.Answer{Status: detect.StatusOK, Exit: code, Output: string(data)}
	}
	switch {
	case code == 1:
		return detect.Answer{Status: detect.StatusMissing}
	case timedOut(code):
		return detect.Answer{Status: detect.StatusTimedOut}
	case code != 0:
		return failed(fmt.Sprintf("the %s read exited %d", q.Op, code))
	}
	text := string(data)
	switch q.Op {
	case detect.OpType:
		mode, ok := parseMode(strings.TrimSuffix(text, "\n"))
		if !ok {
			return failed("the type read's output doesn't parse")
		}
		return detect.Answer{Status: detect.StatusOK, Type: fileType(mode)}
	case detect.OpStat:
		t := strings.TrimSuffix(text, "\n")
		f := strings.Split(t, " ")
		if len(f) != 3 || f[1] == "" || f[2] == "" || strings.ContainsAny(t, "\n\t") {
			return failed("the stat read's output doesn't parse (an owner or group name with whitespace?)")
		}
		mode, ok := parseMode(f[0])
		if !ok {
			return failed("the stat read's output doesn't parse")
		}
		return detect.Answer{Status: detect.StatusOK, Type: fileType(mode), Mode: mode & 0o7777, Owner: f[1], Group: f[2]}
	case detect.OpReadlink:
		t, ok := strings.CutSuffix(text, "\n")
		if !ok || t == "" {
			return failed("the readlink read's output doesn't parse")
		}
		return detect.Answer{Status: detect.StatusOK, Target: t}
	}
	return failed(fmt.Sprintf("unknown read %q", q.Op))
}

// answerUnit fills in the answers of un's reads from its exit status and
// output.
func (b *Batch) answerUnit(answers []detect.Answer, un unit, code int, data []byte) {
	var got []detect.Answer
	switch un.op {
	case detect.OpType, detect.OpStat:
		got = statGroupAnswers(b.Queries, un, code, data)
	case detect.OpDigest:
		got = digestGroupAnswers(un, code, data)
	default:
		got = []detect.Answer{answer(b.Queries[un.reads[0]], code, data)}
	}
	for k, i := range un.reads {
		answers[i] = got[k]
	}
}

// groupFailed is every read of a group that didn't exit 0 answering alike.
func groupFailed(un unit, code int) []detect.Answer {
	a := failed(fmt.Sprintf("the %s read exited %d", un.op, code))
	if timedOut(code) {
		a = detect.Answer{Status: detect.StatusTimedOut}
	}
	return same(len(un.reads), a)
}

func same(n int, a detect.Answer) []detect.Answer {
	out := make([]detect.Answer, n)
	for i := range out {
		out[i] = a
	}
	return out
}

// statGroupAnswers reads a statScript group's output: the line of 0s and
// 1s, then one stat line per path there. Output that doesn't line up with
// the paths (an owner or group name with a newline) fails every read in it.
func statGroupAnswers(queries []detect.Query, un unit, code int, data []byte) []detect.Answer {
	if code != 0 {
		return groupFailed(un, code)
	}
	garbled := same(len(un.reads), failed(fmt.Sprintf("the %s read's output doesn't parse (an owner or group name with a newline?)", un.op)))
	text, ok := strings.CutSuffix(string(data), "\n")
	if !ok {
		return garbled
	}
	lines := strings.Split(text, "\n")
	there := lines[0]
	if len(there) != len(un.reads) || strings.Trim(there, "01") != "" || len(lines)-1 != strings.Count(there, "1") {
		return garbled
	}
	out := make([]detect.Answer, len(un.reads))
	next := 1
	for k, i := range un.reads {
		if there[k] == '0' {
			out[k] = detect.Answer{Status: detect.StatusMissing}
			continue
		}
		out[k] = answer(queries[i], 0, []byte(lines[next]+"\n"))
		next++
	}
	return out
}

// digestGroupAnswers reads a digestScript group's records into one answer
// per path.
func digestGroupAnswers(un unit, code int, data []byte) []detect.Answer {
	if code != 0 {
		return groupFailed(un, code)
	}
	garbled := same(len(un.reads), failed("the content read's output doesn't parse"))
	text, ok := strings.CutSuffix(string(data), "\n")
	if !ok && text != "" {
		return garbled
	}
	records := make([][]string, len(un.reads))
	if text != "" {
		for _, l := range strings.Split(text, "\n") {
			num, rest, ok := strings.Cut(l, " ")
			n, err := strconv.Atoi(num)
			if !ok || err != nil || n < 1 || n > len(records) || strconv.Itoa(n) != num {
				return garbled
			}
			records[n-1] = append(records[n-1], rest)
		}
	}
	out := make([]detect.Answer, len(un.reads))
	for k, r := range records {
		out[k] = digestAnswer(r)
	}
	return out
}

// digestAnswer reads one path's records: "m" alone, or "t <mode>", then for
// a regular file "d" alone, or "o <mode> <links>" and, for a regular file
// with one link, "s <sha512>".
func digestAnswer(lines []string) detect.Answer {
	garbled := failed("the content read's output doesn't parse")
	if len(lines) == 0 {
		return garbled
	}
	if lines[0] == "m" {
		if len(lines) != 1 {
			return garbled
		}
		return detect.Answer{Status: detect.StatusMissing}
	}
	t, ok := strings.CutPrefix(lines[0], "t ")
	if !ok {
		return garbled
	}
	mode, ok := parseMode(t)
	if !ok {
		return garbled
	}
	if ft := fileType(mode); ft != detect.TypeRegular {
		if len(lines) != 1 {
			return garbled
		}
		return detect.Answer{Status: detect.StatusNotRegular, Type: ft}
	}
	if len(lines) < 2 {
		return garbled
	}
	if lines[1] == "d" {
		if len(lines) != 2 {
			return garbled
		}
		return detect.Answer{Status: detect.StatusDenied}
	}
	o, ok := strings.CutPrefix(lines[1], "o ")
	if !ok {
		return garbled
	}
	ms, ls, ok := strings.Cut(o, " ")
	opened, ok2 := parseMode(ms)
	links, err := strconv.ParseUint(ls, 10, 64)
	if !ok || !ok2 || err != nil {
		return garbled
	}
	if ft := fileType(opened); ft != detect.TypeRegular {
		if len(lines) != 2 {
			return garbled
		}
		return detect.Answer{Status: detect.StatusNotRegular, Type: ft}
	}
	if links != 1 {
		if len(lines) != 2 {
			return garbled
		}
		return detect.Answer{Status: detect.StatusHardLinked, Links: links}
	}
	if len(lines) != 3 {
		return garbled
	}
	sum, ok := strings.CutPrefix(lines[2], "s ")
	if !ok || len(sum) != 128 || strings.Trim(sum, "0123456789abcdef") != "" {
		return garbled
	}
	return detect.Answer{Status: detect.StatusOK, SHA512: sum}
}

// parseMode reads stat's %f: the raw mode in hex.
func parseMode(s string) (uint32, bool) {
	if s == "" || len(s) > 8 || strings.Trim(s, "0123456789abcdef") != "" {
		return 0, false
	}
	m, err := strconv.ParseUint(s, 16, 32)
	return uint32(m), err == nil
}

// fileType is the type bits of a raw mode.
func fileType(mode uint32) detect.FileType {
	switch mode & 0o170000 {
	case 0o100000:
		return detect.TypeRegular
	case 0o040000:
		return detect.TypeDirectory
	case 0o120000:
		return detect.TypeSymlink
	case 0o010000:
		return detect.TypeFIFO
	case 0o140000:
		return detect.TypeSocket
	case 0o020000:
		return detect.TypeCharDev
	case 0o060000:
		return detect.TypeBlockDev
	}
	return detect.TypeOther
}

func failed(detail string) detect.Answer {
	return detect.Answer{Status: detect.StatusFailed, Detail: detail}
}

// Started reports whether out holds the batch's start marker: the batch's
// shell ran.
func (b *Batch) Started(out []byte) bool {
	return bytes.HasPrefix(out, []byte(b.marker+" H\n")) || bytes.Contains(out, []byte("\n"+b.marker+" H\n"))
}
