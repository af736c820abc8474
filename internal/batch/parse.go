package batch

import (
	"bytes"
	"encoding/base64"
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
// with the end marker fails as a whole; so does one past OutputLimit, which
// a host stops reading at. The error quotes none of it.
func (b *Batch) Parse(out []byte) ([]detect.Answer, error) {
	if len(out) > OutputLimit {
		return nil, fmt.Errorf("the batch's output passed %d MiB", OutputLimit>>20)
	}
	// Whatever the login shell printed before the batch started (a noisy
	// rc file) is not the batch's.
	pos := -1
	if start := []byte(b.marker + " H\n"); bytes.HasPrefix(out, start) {
		pos = len(start)
	} else if i := bytes.Index(out, []byte("\n"+b.marker+" H\n")); i >= 0 {
		pos = i + len(start) + 1
	} else if string(out) == b.marker+" H" || bytes.HasSuffix(out, []byte("\n"+b.marker+" H")) {
		pos = len(out)
	}
	if pos < 0 {
		return nil, fmt.Errorf("the batch printed no start marker")
	}
	// next is the next line, without its newline; none past the last
	// newline.
	next := func() ([]byte, bool) {
		if pos >= len(out) {
			return nil, false
		}
		l := out[pos:]
		if i := bytes.IndexByte(l, '\n'); i >= 0 {
			l = l[:i]
		}
		pos += len(l) + 1
		return l, true
	}
	stopped := fmt.Errorf("the batch's output stopped before its end marker")
	marker := []byte(b.marker + " ")
	answers := make([]detect.Answer, len(b.Queries))
	var enc, data []byte
	for n, un := range b.units {
		l, ok := next()
		if !ok {
			return nil, stopped
		}
		if rest, ok := bytes.CutPrefix(l, []byte(b.marker+" M ")); ok && n == 0 {
			for _, t := range append(Tools(b.Queries), "/proc/self/fd") {
				if string(rest) == t {
					return nil, &MissingToolError{Tool: t}
				}
			}
			return nil, fmt.Errorf("the batch's output is garbled")
		}
		if string(l) != b.marker+" B "+strconv.Itoa(n) {
			return nil, layout(un.reads[0])
		}
		enc = enc[:0]
		for {
			l, ok := next()
			if !ok {
				return nil, stopped
			}
			if rest, ok := bytes.CutPrefix(l, []byte(b.marker+" E ")); ok {
				num, status, ok := bytes.Cut(rest, []byte(" "))
				if !ok || string(num) != strconv.Itoa(n) {
					return nil, layout(un.reads[0])
				}
				code, err := strconv.Atoi(string(status))
				if err != nil || code < 0 || code > 255 {
					return nil, fmt.Errorf("the batch's output is garbled")
				}
				if data, ok = decode(data, enc); !ok {
					return nil, fmt.Errorf("the batch's output is garbled")
				}
				b.answerUnit(answers, un, code, data)
				break
			}
			if !base64Line(l) {
				if bytes.HasPrefix(l, marker) {
					return nil, layout(un.reads[0])
				}
				return nil, fmt.Errorf("the batch's output is garbled")
			}
			enc = append(enc, l...)
		}
	}
	l, ok := next()
	if !ok {
		return nil, stopped
	}
	if string(l) != b.marker+" Z" {
		return nil, fmt.Errorf("the batch's answers don't line up with its reads: more answers than its %d reads", len(b.Queries))
	}
	for {
		l, ok := next()
		if !ok {
			break
		}
		if len(l) != 0 {
			return nil, fmt.Errorf("the batch's output goes on past its end marker")
		}
	}
	return answers, nil
}

// base64Line reports whether line is one of base64's: the standard
// alphabet and its padding, nothing else (no space, so never a marker).
func base64Line(line []byte) bool {
	for _, c := range line {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// decode sets data to the bytes enc, one answer's base64 lines joined,
// spells: strictly (padding where it belongs, no stray bits), so the only
// text that decodes is what base64 wrote. data's memory is reused.
func decode(data, enc []byte) ([]byte, bool) {
	n := base64.StdEncoding.DecodedLen(len(enc))
	if cap(data) < n {
		data = make([]byte, n)
	}
	k, err := base64.StdEncoding.Strict().Decode(data[:n], enc)
	return data[:k], err == nil
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
	if q.Op == detect.OpContent {
		return contentAnswer(q, code, data)
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
		return detect.Answer{Status: detect.StatusOK, Type: FileType(mode)}
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
		return detect.Answer{Status: detect.StatusOK, Type: FileType(mode), Mode: mode & 0o7777, Owner: f[1], Group: f[2]}
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
	if un.op == opPaths {
		pathGroupAnswers(answers, un, code, data)
		return
	}
	if un.op == opTexts {
		textGroupAnswers(b, answers, un, code, data)
		return
	}
	answers[un.reads[0]] = answer(b.Queries[un.reads[0]], code, data)
}

// groupFailed is every read of a group that didn't exit 0 answering alike.
func groupFailed(answers []detect.Answer, un unit, code int) {
	a := failed(fmt.Sprintf("the path reads exited %d", code))
	if timedOut(code) {
		a = detect.Answer{Status: detect.StatusTimedOut}
	}
	for _, i := range un.reads {
		answers[i] = a
	}
}

// opened is a descriptor a group opened to read a path's content, and what
// it read through it.
type opened struct {
	path  int    // the path's place in the group
	fd    string // /proc/<pid>/fd/<k>
	mode  uint32
	links uint64
	sum   string
}

// pathGroupAnswers reads a pathScript group's output (see pathScript) into
// the answers of its reads. Output that doesn't line up with the group's
// paths (an owner or group name with a newline, a path that changed between
// the reads) fails every read in it.
func pathGroupAnswers(answers []detect.Answer, un unit, code int, data []byte) {
	if code != 0 {
		groupFailed(answers, un, code)
		return
	}
	g, ok := parsePathGroup(un, data)
	if !ok {
		a := failed("the path reads' output doesn't parse (an owner or group name with a newline, or a path that changed while it was read?)")
		for _, i := range un.reads {
			answers[i] = a
		}
		return
	}
	g.answer(answers)
}

// pathGroup is a pathScript group's output as it is parsed: what each path
// is (there: m missing, l a link to nothing, L a link to something, e
// there), its lstat line and mode, the mode a link leads to, and the
// descriptors the content reads opened.
type pathGroup struct {
	un       unit
	there    string
	lines    []string // what is left to parse
	lstat    []string
	modes    []uint32
	follow   []uint32
	denied   []bool
	recorded []bool
	byPath   []*opened
	names    map[string]bool
}

// parsePathGroup parses data, reporting false where it doesn't line up.
func parsePathGroup(un unit, data []byte) (*pathGroup, bool) {
	text, ok := strings.CutSuffix(string(data), "\n")
	if !ok {
		return nil, false
	}
	lines := strings.Split(text, "\n")
	n := len(un.paths)
	if len(lines[0]) != n || strings.Trim(lines[0], "mlLe") != "" {
		return nil, false
	}
	g := &pathGroup{
		un: un, there: lines[0], lines: lines[1:],
		lstat: make([]string, n), modes: make([]uint32, n), follow: make([]uint32, n),
		denied: make([]bool, n), recorded: make([]bool, n), byPath: make([]*opened, n),
		names: map[string]bool{},
	}
	if !g.stats() {
		return nil, false
	}
	for len(g.lines) > 0 {
		if !g.window() {
			return nil, false
		}
	}
	for k, p := range un.paths {
		if g.there[k] != 'm' && FileType(g.modes[k]) == detect.TypeRegular && len(p.sha) > 0 && !g.recorded[k] {
			// A regular file whose content was to be read, and wasn't:
			// it changed between the reads.
			return nil, false
		}
	}
	return g, true
}

// next takes the next line.
func (g *pathGroup) next() (string, bool) {
	if len(g.lines) == 0 {
		return "", false
	}
	line := g.lines[0]
	g.lines = g.lines[1:]
	return line, true
}

// stats parses the lstat lines, one per path there, and the followed stat
// lines, one per link to something there.
func (g *pathGroup) stats() bool {
	for k := range g.there {
		if g.there[k] == 'm' {
			continue
		}
		line, ok := g.next()
		if !ok {
			return false
		}
		g.lstat[k] = line
		m, _, _ := strings.Cut(line, " ")
		mode, ok := parseMode(m)
		isLink := FileType(mode) == detect.TypeSymlink
		if !ok || isLink != (g.there[k] == 'l' || g.there[k] == 'L') {
			return false
		}
		g.modes[k] = mode
	}
	for k := range g.there {
		if g.there[k] != 'L' {
			continue
		}
		line, ok := g.next()
		if !ok {
			return false
		}
		if g.follow[k], ok = parseMode(line); !ok {
			return false
		}
	}
	return true
}

// record takes num, a path's number in a content read's line, as read
// once: a regular file there whose content was to be read.
func (g *pathGroup) record(num string) (int, bool) {
	p, err := strconv.Atoi(num)
	if err != nil || strconv.Itoa(p) != num || p < 1 || p > g.un.digests || g.recorded[p-1] ||
		g.there[p-1] != 'e' || FileType(g.modes[p-1]) != detect.TypeRegular {
		return 0, false
	}
	g.recorded[p-1] = true
	return p - 1, true
}

// window parses one window of the content reads: a line per seven paths
// opened together (and one of those refused), then a stat line per
// descriptor, then a sum per regular file of one link.
func (g *pathGroup) window() bool {
	window, ok := g.opens()
	if !ok {
		return false
	}
	for _, o := range window {
		line, ok := g.next()
		if !ok {
			return false
		}
		ms, ls, ok := strings.Cut(line, " ")
		mode, ok2 := parseMode(ms)
		links, err := strconv.ParseUint(ls, 10, 64)
		if !ok || !ok2 || err != nil || strconv.FormatUint(links, 10) != ls {
			return false
		}
		o.mode, o.links = mode, links
	}
	for _, o := range window {
		if FileType(o.mode) != detect.TypeRegular || o.links != 1 {
			continue
		}
		line, ok := g.next()
		if !ok {
			return false
		}
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || name != o.fd || len(sum) != 128 || strings.Trim(sum, "0123456789abcdef") != "" {
			return false
		}
		o.sum = sum
	}
	for _, o := range window {
		g.byPath[o.path] = o
	}
	return true
}

// opens parses a window's "o" and "d" lines: the descriptors opened, and
// the paths refused.
func (g *pathGroup) opens() ([]*opened, bool) {
	var window []*opened
	levels := 0
	for len(g.lines) > 0 {
		f := strings.Split(g.lines[0], " ")
		if f[0] == "d" && len(f) > 1 && levels > 0 {
			for _, num := range f[1:] {
				p, ok := g.record(num)
				if !ok {
					return nil, false
				}
				g.denied[p] = true
			}
		} else if f[0] == "o" && len(f) >= 2 && f[1] != "" && strings.Trim(f[1], "0123456789") == "" {
			for _, pair := range f[2:] {
				num, k, ok := strings.Cut(pair, ":")
				p, ok2 := g.record(num)
				fd, err := strconv.Atoi(k)
				name := "/proc/" + f[1] + "/fd/" + k
				if !ok || !ok2 || err != nil || strconv.Itoa(fd) != k || fd < 3 || g.names[name] {
					return nil, false
				}
				g.names[name] = true
				window = append(window, &opened{path: p, fd: name})
			}
			levels++
		} else {
			break
		}
		g.lines = g.lines[1:]
	}
	return window, levels > 0
}

// answer sets the answers of the group's reads.
func (g *pathGroup) answer(answers []detect.Answer) {
	for k, p := range g.un.paths {
		typ, content := g.typeAnswer(k), g.contentAnswer(k)
		for _, i := range p.types {
			answers[i] = typ
		}
		for _, i := range p.sha {
			answers[i] = content
		}
		for _, i := range p.stats {
			if g.there[k] == 'm' {
				answers[i] = detect.Answer{Status: detect.StatusMissing}
				continue
			}
			answers[i] = answer(detect.Query{Op: detect.OpStat}, 0, []byte(g.lstat[k]+"\n"))
		}
	}
}

// typeAnswer is the answer to path k's type read.
func (g *pathGroup) typeAnswer(k int) detect.Answer {
	switch g.there[k] {
	case 'm', 'l':
		return detect.Answer{Status: detect.StatusMissing}
	case 'L':
		return detect.Answer{Status: detect.StatusOK, Type: FileType(g.follow[k])}
	}
	return detect.Answer{Status: detect.StatusOK, Type: FileType(g.modes[k])}
}

// contentAnswer is the answer to path k's content read.
func (g *pathGroup) contentAnswer(k int) detect.Answer {
	if g.there[k] == 'm' {
		return detect.Answer{Status: detect.StatusMissing}
	}
	t, o := FileType(g.modes[k]), g.byPath[k]
	switch {
	case t != detect.TypeRegular:
		return detect.Answer{Status: detect.StatusNotRegular, Type: t}
	case g.denied[k]:
		return detect.Answer{Status: detect.StatusDenied}
	case o == nil:
		return failed("the content read's output doesn't parse")
	case FileType(o.mode) != detect.TypeRegular:
		return detect.Answer{Status: detect.StatusNotRegular, Type: FileType(o.mode)}
	case o.links != 1:
		return detect.Answer{Status: detect.StatusHardLinked, Links: o.links}
	}
	return detect.Answer{Status: detect.StatusOK, SHA512: o.sum}
}

// parseMode reads stat's %f: the raw mode in hex.
func parseMode(s string) (uint32, bool) {
	if s == "" || len(s) > 8 || strings.Trim(s, "0123456789abcdef") != "" {
		return 0, false
	}
	m, err := strconv.ParseUint(s, 16, 32)
	return uint32(m), err == nil
}

// FileType is what the type bits (S_IFMT) of a raw mode say: stat's %f,
// or the st_mode of Linux's stat(2).
func FileType(mode uint32) detect.FileType {
	if t := fileTypes[mode>>12&0o17]; t != "" {
		return t
	}
	return detect.TypeOther
}

// fileTypes are the types S_IFMT names, by its bits shifted down 12.
var fileTypes = [16]detect.FileType{
	0o10: detect.TypeRegular, 0o04: detect.TypeDirectory, 0o12: detect.TypeSymlink,
	0o01: detect.TypeFIFO, 0o14: detect.TypeSocket, 0o02: detect.TypeCharDev, 0o06: detect.TypeBlockDev,
}

func failed(detail string) detect.Answer {
	return detect.Answer{Status: detect.StatusFailed, Detail: detail}
}

// Started reports whether out holds the batch's start marker: the batch's
// shell ran.
func (b *Batch) Started(out []byte) bool {
	return bytes.HasPrefix(out, []byte(b.marker+" H\n")) || bytes.Contains(out, []byte("\n"+b.marker+" H\n"))
}
