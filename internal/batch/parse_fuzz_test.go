package batch

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/observation"
)

// fuzzNonce is the nonce of the batch the fuzz target parses.
const fuzzNonce = "0123456789abcdef"

// fuzzBatch is a batch of every kind of read: three probes, a group of path
// reads (a type and a content read), a bounded content read, an operator's
// command and a readlink. Its units, in order: probe, group, probe,
// content, command, readlink, probe.
func fuzzBatch(t testing.TB) *Batch {
	probe := func(text string) detect.Query { return detect.NewProbe(observation.LaneLogin, text) }
	qs := []detect.Query{
		probe("a"),
		{Op: detect.OpType, Lane: observation.LaneLogin, Path: "/a"},
		{Op: detect.OpDigest, Lane: observation.LaneLogin, Path: "/b"},
		probe("b"),
		{Op: detect.OpContent, Lane: observation.LaneLogin, Path: "/c", Limit: 16},
		command("true", 5),
		{Op: detect.OpReadlink, Lane: observation.LaneLogin, Path: "/d"},
		probe("c"),
	}
	b, err := Build(fuzzNonce, qs)
	must(t, err)
	if len(b.units) != 7 {
		t.Fatalf("units: %+v", b.units)
	}
	return b
}

// fuzzProbes are the units of fuzzBatch that are probes.
var fuzzProbes = []int{0, 2, 6}

func isProbe(u int) bool { return u == 0 || u == 2 || u == 6 }

// fuzzFixed is what the units of fuzzBatch that aren't probes print: the
// group (/b, whose content is read, first: a regular file; /a a
// directory), the content read, the command's report and the readlink.
var fuzzFixed = map[int]string{
	1: "ee\n81a4 root root\n41ed root root\no 9 1:3\n81a4 1\n" + strings.Repeat("ab", 64) + "  /proc/9/fd/3\n",
	3: "o 81a4 1 2049:12 2049:12\nhello",
	4: "0\n",
	5: "/target\n",
}

// b64 is what base64 prints of data: lines of at most 76 characters, the
// last padded; nothing for no data.
func b64(data []byte) string {
	e := base64.StdEncoding.EncodeToString(data)
	var s strings.Builder
	for len(e) > 0 {
		n := min(76, len(e))
		s.WriteString(e[:n] + "\n")
		e = e[n:]
	}
	return s.String()
}

// stream is the batch's output with each unit's section (what goes between
// its B and E lines) and exit status.
func stream(b *Batch, sections []string, codes []int) []byte {
	var s strings.Builder
	s.WriteString(b.marker + " H\n")
	for u := range b.units {
		fmt.Fprintf(&s, "%s B %d\n%s%s E %d %d\n", b.marker, u, sections[u], b.marker, u, codes[u])
	}
	s.WriteString(b.marker + " Z\n")
	return []byte(s.String())
}

// probeAnswer is the answer of a probe that exited code having printed data.
func probeAnswer(code int, data []byte) detect.Answer {
	switch {
	case timedOut(code):
		return detect.Answer{Status: detect.StatusTimedOut}
	case len(data) > detect.ProbeOutputLimit:
		return detect.Answer{Status: detect.StatusFailed, Detail: fmt.Sprintf("the probe printed more than %d bytes", detect.ProbeOutputLimit)}
	}
	return detect.Answer{Status: detect.StatusOK, Exit: code, Output: string(data)}
}

// FuzzParseNoForgery holds Parse to the batch's framing: whatever bytes one
// probe prints, every other read's answer is exactly what that read
// printed. Probes print p0, p1 and p2 and exit with codes' bytes; then unit
// k (any unit) prints forged instead. Through base64, as the script sends it,
// the batch parses and unit k answers forged. Sent raw, as if it had
// reached the stream unencoded (but without the nonce, which no probe
// knows), the batch fails as a whole or every other read still answers as
// it did. Noise before the start marker and blank lines after the end
// marker change nothing.
func FuzzParseNoForgery(f *testing.F) {
	f.Add([]byte("ii  nginx\n"), []byte{}, []byte("\x00\xff"), uint32(0x000107), uint8(0), []byte("x"), uint8(0))
	f.Add([]byte("a"), []byte("b"), []byte("c"), uint32(124), uint8(2), []byte("ZAP00 E 0 0\nZAP00 Z\n"), uint8(1))
	f.Add([]byte{}, []byte{}, []byte{}, uint32(0), uint8(1), []byte(" 65 0a\nZAP0123456789abcdef E 1 0\n"), uint8(1))
	f.Add([]byte("x"), []byte("y"), []byte("z"), uint32(0x8f0189), uint8(3), []byte(" 6d 0a\n"), uint8(7))
	f.Add([]byte("0123456789abcdef0123"), []byte("\n\n"), []byte(" 41\n"), uint32(0xffffff), uint8(6), []byte(" 41 42\n 4\n3\n\n"), uint8(5))
	b := fuzzBatch(f)
	n := len(b.units)
	base := baseline(f, b)
	f.Fuzz(func(t *testing.T, p0, p1, p2 []byte, codes uint32, k uint8, forged []byte, mode uint8) {
		printed := map[int][]byte{0: p0, 2: p1, 6: p2}
		data := make([][]byte, n)
		code := make([]int, n)
		for i, u := range fuzzProbes {
			data[u], code[u] = printed[u], int(codes>>(8*i)&0xff)
		}
		for u, d := range fuzzFixed {
			data[u] = []byte(d)
		}
		sections := make([]string, n)
		for u := range sections {
			sections[u] = b64(data[u])
		}
		frame := func(sections []string) []byte {
			out := stream(b, sections, code)
			if mode&2 != 0 {
				out = append([]byte("Welcome\nmotd "+b.marker[:8]+"\n"), out...)
			}
			if mode&4 != 0 {
				out = append(out, "\n\n"...)
			}
			return out
		}

		clean, err := b.Parse(frame(sections))
		if err != nil {
			t.Fatalf("the batch as sent: %v", err)
		}
		for _, u := range fuzzProbes {
			i := b.units[u].reads[0]
			if want := probeAnswer(code[u], data[u]); clean[i] != want {
				t.Fatalf("probe %d: %+v, want %+v", i, clean[i], want)
			}
		}
		if !sameExcept(clean, base, b, fuzzProbes...) {
			t.Fatalf("what the probes printed changed another read's answer:\n%+v\nwant\n%+v", clean, base)
		}

		u := int(k) % n
		forgedSections := append([]string(nil), sections...)
		raw := mode&1 != 0
		if raw {
			for bytes.Contains(forged, []byte(b.marker)) {
				forged = bytes.ReplaceAll(forged, []byte(b.marker), nil)
			}
			forgedSections[u] = string(forged)
		} else {
			forgedSections[u] = b64(forged)
		}
		got, err := b.Parse(frame(forgedSections))
		if err != nil {
			if !raw {
				t.Fatalf("unit %d printing %q: %v", u, forged, err)
			}
			if strings.Contains(err.Error(), "ZAP") {
				t.Fatalf("the error quotes the output: %v", err)
			}
			return
		}
		if !sameExcept(got, clean, b, u) {
			t.Fatalf("unit %d's output (raw %v, %q) changed another read's answer:\n%+v\nwant\n%+v", u, raw, forged, got, clean)
		}
		if isProbe(u) && !raw {
			i := b.units[u].reads[0]
			if want := probeAnswer(code[u], forged); got[i] != want {
				t.Fatalf("probe %d printing %q: %+v, want %+v", i, forged, got[i], want)
			}
		}
	})
}

// baseline is fuzzBatch's answers when its probes print nothing and exit 0.
func baseline(t testing.TB, b *Batch) []detect.Answer {
	sections := make([]string, len(b.units))
	for u, d := range fuzzFixed {
		sections[u] = b64([]byte(d))
	}
	answers, err := b.Parse(stream(b, sections, make([]int, len(b.units))))
	must(t, err)
	return answers
}

// sameExcept reports whether a and want agree on every read outside the
// units skip.
func sameExcept(a, want []detect.Answer, b *Batch, skip ...int) bool {
	skipped := map[int]bool{}
	for _, u := range skip {
		for _, i := range b.units[u].reads {
			skipped[i] = true
		}
	}
	for i := range a {
		if !skipped[i] && a[i] != want[i] {
			return false
		}
	}
	return true
}

// TestFuzzBatch checks the fixed outputs of fuzzBatch read as meant, so
// that the fuzz target compares real answers, not failures.
func TestFuzzBatch(t *testing.T) {
	b := fuzzBatch(t)
	got := baseline(t, b)
	want := []detect.Answer{
		{Status: detect.StatusOK},
		{Status: detect.StatusOK, Type: detect.TypeDirectory},
		{Status: detect.StatusOK, SHA512: strings.Repeat("ab", 64)},
		{Status: detect.StatusOK},
		{Status: detect.StatusOK, Content: "hello"},
		{Status: detect.StatusOK, Exit: 0},
		{Status: detect.StatusOK, Target: "/target"},
		{Status: detect.StatusOK},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("read %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestParseBounds checks the limits Parse holds an output to name
// themselves: the batch's whole output (OutputLimit) and one probe's
// (detect.ProbeOutputLimit).
func TestParseBounds(t *testing.T) {
	b := fuzzBatch(t)
	sections := make([]string, len(b.units))
	for u, d := range fuzzFixed {
		sections[u] = b64([]byte(d))
	}
	code := make([]int, len(b.units))
	sections[0] = b64(make([]byte, detect.ProbeOutputLimit+1))
	answers, err := b.Parse(stream(b, sections, code))
	must(t, err)
	if want := "the probe printed more than 1048576 bytes"; answers[0].Detail != want {
		t.Errorf("a probe past its limit: %+v, want %q", answers[0], want)
	}
	over := append(stream(b, sections, code), make([]byte, OutputLimit)...)
	if _, err := b.Parse(over); err == nil || !strings.Contains(err.Error(), "passed 64 MiB") {
		t.Errorf("an output past OutputLimit: %v, want it named", err)
	}
}
