package sshhost

import (
	"strconv"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/execute"
)

// frameToken is the end lines' token in FuzzPipelineFramesSplitAtEndLines
// (a batch's is random).
const frameToken = "ZAP_END_0123456789abcdef0123456789abcdef"

// lastBytes is the last OutputLimit bytes of s, what a section's tail keeps.
func lastBytes(s string) string {
	if len(s) > execute.OutputLimit {
		return s[len(s)-execute.OutputLimit:]
	}
	return s
}

// FuzzPipelineFramesSplitAtEndLines feeds the step driver's stdout, as it
// prints it, to the frame reader: what the session printed before the
// first step, then each step's output followed by its end line (a newline,
// the token, the step's number and status). Each step's section is the
// session's opening bytes and the step's own output, exactly, with its
// status and byte count, whatever the output holds but the token: no
// newline, blank lines, a line that looks like an end line of another
// token, a line longer than the reader's buffer. Any other stream is read
// without a panic.
func FuzzPipelineFramesSplitAtEndLines(f *testing.F) {
	f.Add("", "installed\n", "", uint8(0), uint8(1))
	f.Add("Welcome to web1\n", "no newline", "\n\n", uint8(0), uint8(93))
	f.Add("motd", "ZAP_END_x 1 0\n", "ZAP_END_0123 2 0\nrest", uint8(0), uint8(0))
	f.Add("", strings.Repeat("x", 70<<10)+"\n"+frameToken[:20]+" 1 0\n", " ZAP_END_ 1 0\n"+strings.Repeat("y", 64<<10), uint8(0), uint8(0))
	f.Add("", "x", frameToken+" 1 0\n", uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, pre, a, b string, sa, sb uint8) {
		raw := a + b + pre // any stream, as it comes
		readFrames(raw)
		if strings.Contains(pre+a+b, frameToken) {
			return
		}
		stream := pre + "\n" + frameToken + " 0 0\n" +
			a + "\n" + frameToken + " 1 " + strconv.Itoa(int(sa)) + "\n" +
			b + "\n" + frameToken + " 2 " + strconv.Itoa(int(sb)) + "\n"
		sp := readFrames(stream)
		if len(sp.done) != 3 || !sp.eof {
			t.Fatalf("%d sections (eof %v) in %q", len(sp.done), sp.eof, stream)
		}
		for k, want := range []struct {
			out    string
			status int
		}{{pre, 0}, {pre + a, int(sa)}, {pre + b, int(sb)}} {
			s := sp.done[k]
			if got := s.tail.String(); got != lastBytes(want.out) || s.n != int64(len(want.out)) || s.status != want.status {
				t.Fatalf("section %d is %q (%d bytes, status %d), want %q (%d bytes, status %d)", k, got, s.n, s.status, lastBytes(want.out), len(want.out), want.status)
			}
		}
	})
}

// readFrames reads stream as the driver's stdout and returns its splitter.
func readFrames(stream string) *splitter {
	b := &driverRun{}
	b.out.cur = section{tail: execute.MaskedTail(nil)}
	b.errs.cur = section{tail: execute.MaskedTail(nil)}
	b.read(strings.NewReader(stream), frameToken, &b.out, true)
	return &b.out
}
