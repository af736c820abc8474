package build

import (
	"encoding/binary"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/detect/detecttest"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

const testPin = "0000000000000000000000000000000000000000000000000000000000000001"

func buildRes(b declaration.Build) *declaration.Resource {
	return &declaration.Resource{Common: declaration.Common{ID: "hello", Type: declaration.KindBuild}, Body: &b}
}

// newBuild is r's detector, as kind.Def builds it: env.Resource is r.
func newBuild(r *declaration.Resource, env detect.Env) detect.Detector {
	env.Resource = r
	return NewBuild(declaration.BodyOf[*declaration.Build](r), env)
}

func sampleBuild() declaration.Build {
	strip := 1
	return declaration.Build{
		Source: declaration.Source{Type: "remote", URL: declaration.Lit("https://example.com/hello.tar.gz"),
			Extract: &declaration.Extract{Type: declaration.ExtractTarGZ, StripComponents: &strip}, Blake3: testPin},
		Run:    declaration.Lit("make install"),
		Output: declaration.Lit("~/.local/bin/hello"),
		Env:    map[string]declaration.Text{"TOKEN": declaration.Ref("TOKEN")},
	}
}

// TestProvenanceMovesWithWhatItCovers: the pin, the extract form, run, cwd
// and env as declared move the provenance; what the source's bytes don't
// depend on (the URL, its auth, the output, the verify block) and a
// reference's value don't.
func TestProvenanceMovesWithWhatItCovers(t *testing.T) {
	t.Parallel()
	base := sampleBuild()
	want := Provenance(&base, testPin)
	if !observation.ValidFingerprint(want) {
		t.Fatalf("provenance %q isn't 64 lowercase hex", want)
	}
	edit := func(f func(b *declaration.Build)) declaration.Build {
		b := sampleBuild()
		f(&b)
		return b
	}
	two := 2
	moves := map[string]declaration.Build{
		"strip":         edit(func(b *declaration.Build) { b.Source.Extract.StripComponents = &two }),
		"no strip":      edit(func(b *declaration.Build) { b.Source.Extract.StripComponents = nil }),
		"extract type":  edit(func(b *declaration.Build) { b.Source.Extract.Type = declaration.ExtractTarXZ }),
		"no extract":    edit(func(b *declaration.Build) { b.Source.Extract = nil }),
		"run":           edit(func(b *declaration.Build) { b.Run = declaration.Lit("make  install") }),
		"run reference": edit(func(b *declaration.Build) { b.Run = declaration.Ref("make install") }),
		"cwd":           edit(func(b *declaration.Build) { b.Cwd = "src" }),
		"env value":     edit(func(b *declaration.Build) { b.Env["TOKEN"] = declaration.Lit("TOKEN") }),
		"env name":      edit(func(b *declaration.Build) { b.Env = map[string]declaration.Text{"TOKEN2": declaration.Ref("TOKEN")} }),
		"no env":        edit(func(b *declaration.Build) { b.Env = nil }),
	}
	for name, b := range moves {
		if Provenance(&b, testPin) == want {
			t.Errorf("%s: the provenance didn't move", name)
		}
	}
	if Provenance(&base, strings.Repeat("2", 64)) == want {
		t.Error("the pin: the provenance didn't move")
	}
	stays := map[string]declaration.Build{
		"url":    edit(func(b *declaration.Build) { b.Source.URL = declaration.Lit("https://mirror.example.com/x.tgz") }),
		"auth":   edit(func(b *declaration.Build) { a := declaration.Ref("AUTH"); b.Source.Auth = &a }),
		"output": edit(func(b *declaration.Build) { b.Output = declaration.Lit("/usr/local/bin/hello") }),
		"verify": edit(func(b *declaration.Build) {
			b.Source.Verify = &declaration.Verification{Scheme: "minisign", PublicKey: "RW" + strings.Repeat("A", 54)}
		}),
		"none as the default": edit(func(b *declaration.Build) {}),
	}
	for name, b := range stays {
		if Provenance(&b, testPin) != want {
			t.Errorf("%s: the provenance moved", name)
		}
	}
	none := edit(func(b *declaration.Build) { b.Source.Extract = nil })
	explicit := edit(func(b *declaration.Build) { b.Source.Extract = &declaration.Extract{Type: declaration.ExtractNone} })
	if Provenance(&none, testPin) != Provenance(&explicit, testPin) {
		t.Error("extract none declared and left to its default differ")
	}
}

// decodeProvenance reads provenanceBytes back into a build and a pin, or
// fails: the encoding is injective when every encoding reads back to what
// made it.
func decodeProvenance(t *testing.T, b []byte) (declaration.Build, string) {
	t.Helper()
	rest, ok := strings.CutPrefix(string(b), provenanceTag)
	if !ok {
		t.Fatal("no tag")
	}
	buf := []byte(rest)
	num := func() uint64 {
		if len(buf) < 8 {
			t.Fatal("short number")
		}
		n := binary.BigEndian.Uint64(buf)
		buf = buf[8:]
		return n
	}
	str := func() string {
		n := num()
		if uint64(len(buf)) < n {
			t.Fatal("short string")
		}
		s := string(buf[:n])
		buf = buf[n:]
		return s
	}
	text := func() declaration.Text {
		var parts []declaration.Part
		for range num() {
			kind := buf[0]
			buf = buf[1:]
			if kind == 'e' {
				parts = append(parts, declaration.Part{Env: str()})
			} else {
				parts = append(parts, declaration.Part{Lit: str()})
			}
		}
		return declaration.Concat(parts...)
	}
	if v := num(); v != ProvenanceVersion {
		t.Fatalf("version %d", v)
	}
	pin := str()
	out := declaration.Build{}
	typ, strip := str(), int(num())
	out.Source.Extract = &declaration.Extract{Type: declaration.ExtractType(typ), StripComponents: &strip}
	out.Run = text()
	out.Cwd = str()
	if n := num(); n > 0 {
		out.Env = map[string]declaration.Text{}
		for range n {
			name := str()
			out.Env[name] = text()
		}
	}
	if len(buf) != 0 {
		t.Fatalf("%d bytes left over", len(buf))
	}
	return out, pin
}

// FuzzProvenanceEncoding: the bytes a provenance hashes read back to the
// pin, extract form, run, cwd and env that made them, so no two builds
// that differ in these share a provenance's input.
func FuzzProvenanceEncoding(f *testing.F) {
	f.Add(testPin, "tar.gz", uint8(1), "make", "REF", "src", "A", "v", "B", "w")
	f.Add("", "none", uint8(0), "", "", "", "", "", "", "")
	f.Add("x", "tar.xz", uint8(9), "a\x00b", "\x00", "..", "A", "", "A", "x")
	f.Fuzz(func(t *testing.T, pin, typ string, strip uint8, run, ref, cwd, n1, v1, n2, v2 string) {
		s := int(strip)
		b := declaration.Build{
			Source: declaration.Source{Extract: &declaration.Extract{Type: declaration.ExtractType(typ), StripComponents: &s}},
			Run:    declaration.Concat(declaration.Part{Lit: run}, declaration.Part{Env: ref}, declaration.Part{Lit: v1}),
			Cwd:    cwd,
		}
		if n1 != "" || n2 != "" {
			b.Env = map[string]declaration.Text{n1: declaration.Lit(v1), n2: declaration.Concat(declaration.Part{Env: v2}, declaration.Part{Lit: ref})}
		}
		got, gotPin := decodeProvenance(t, provenanceBytes(&b, pin))
		if gotPin != pin || got.Cwd != b.Cwd || !reflect.DeepEqual(got.Run.Parts(), b.Run.Parts()) ||
			got.Source.Extract.Type != b.Source.Extract.Type || *got.Source.Extract.StripComponents != s {
			t.Fatalf("read back %+v (pin %q), want %+v (pin %q)", got, gotPin, b, pin)
		}
		if !maps.EqualFunc(got.Env, b.Env, func(x, y declaration.Text) bool { return reflect.DeepEqual(x.Parts(), y.Parts()) }) {
			t.Fatalf("env read back %v, want %v", got.Env, b.Env)
		}
	})
}

// TestBuiltVerdict: the output decides absent; the sidecar's provenance
// decides converged or drifted; a read without an answer, or a sidecar
// that isn't a file of its own, holds. Every read verdict carries the pin.
func TestBuiltVerdict(t *testing.T) {
	t.Parallel()
	det := newBuild(buildRes(sampleBuild()), detecttest.Env(nil))
	b, ok := det.(*Built)
	if !ok {
		t.Fatalf("detector %#v", det)
	}
	if b.Output != "/home/ops/.local/bin/hello" || b.Sidecar != "/home/ops/.local/bin/hello.zap-build" {
		t.Errorf("paths %q, %q", b.Output, b.Sidecar)
	}
	if q := b.Queries(); len(q) != 2 || q[0].Op != detect.OpType || q[1].Op != detect.OpContent || q[1].Path != b.Sidecar || q[0].Lane != observation.LaneElevated {
		t.Errorf("queries %+v", q)
	}
	there := detect.Answer{Status: detect.StatusOK, Type: detect.TypeRegular}
	other := strings.Repeat("ab", 32)
	pinned := func(r detect.Result) detect.Result {
		r.Pin = testPin
		return r
	}
	drift := func(seen string) detect.Result {
		return pinned(detecttest.Drift(observation.Difference{Field: FieldProvenance, Observed: seen, Desired: b.Want}))
	}
	side := func(content string, over bool) detect.Answer {
		return detect.Answer{Status: detect.StatusOK, Content: content, Over: over}
	}
	detecttest.Check(t, b, []detecttest.Case{
		{"installed", []detect.Answer{there, side(b.Want+"\n", false)}, pinned(detect.Converged())},
		{"installed, no line feed", []detect.Answer{there, side(b.Want, false)}, pinned(detect.Converged())},
		{"no output", []detect.Answer{detecttest.Missing, side(b.Want+"\n", false)}, pinned(detect.Absent())},
		{"no output nor sidecar", []detect.Answer{detecttest.Missing, detecttest.Missing}, pinned(detect.Absent())},
		{"another provenance", []detect.Answer{there, side(other+"\n", false)}, drift(other)},
		{"no sidecar", []detect.Answer{there, detecttest.Missing}, drift("none")},
		{"not a provenance", []detect.Answer{there, side("hello\n", false)}, drift("not a provenance")},
		{"longer", []detect.Answer{there, side(b.Want+"\n", true)}, drift("not a provenance")},
		{"a link", []detect.Answer{there, {Status: detect.StatusNotRegular, Type: detect.TypeSymlink}}, drift("a symbolic link")},
		{"a fifo", []detect.Answer{there, {Status: detect.StatusNotRegular, Type: detect.TypeFIFO}},
			detect.Holding("the provenance sidecar /home/ops/.local/bin/hello.zap-build is a fifo, not a regular file")},
		{"hard linked", []detect.Answer{there, {Status: detect.StatusHardLinked, Links: 2}},
			detect.Holding("the provenance sidecar /home/ops/.local/bin/hello.zap-build has 2 hard links; replace it with a copy of its own")},
		{"output denied", []detect.Answer{detecttest.Denied, detecttest.Missing}, detect.Holding("permission denied reading the output /home/ops/.local/bin/hello")},
		{"sidecar denied", []detect.Answer{there, detecttest.Denied}, detect.Holding("permission denied reading the provenance sidecar /home/ops/.local/bin/hello.zap-build")},
	})
}

// TestNewBuildHolds: a tracked pin with no lock to read, an output that
// doesn't resolve, and no resource to look a pin up by hold the build,
// saying why.
func TestNewBuildHolds(t *testing.T) {
	t.Parallel()
	tracked := sampleBuild()
	tracked.Source.Blake3 = ""
	if r := newBuild(buildRes(tracked), detecttest.Env(nil)).Verdict(nil); r.Verdict != observation.Undetermined || !strings.Contains(r.Reason, "zap.lock") {
		t.Errorf("tracked: %+v", r)
	}
	held := sampleBuild()
	held.Output = declaration.Ref("OUT")
	if r := newBuild(buildRes(held), detecttest.Env(nil)).Verdict(nil); r.Verdict != observation.Undetermined || !strings.Contains(r.Reason, "output: the reference OUT is unset") {
		t.Errorf("unset output: %+v", r)
	}
	pinned := detect.Env{Home: "/h", Value: func(string) string { return "" }, Pin: func(r *declaration.Resource, f declaration.Fetched) detect.Pin {
		if r.ID != "hello" || f.Kind != declaration.LockBuild {
			t.Errorf("Pin asked for %s (%s)", r.ID, f.Kind)
		}
		return detect.Pin{Blake3: strings.Repeat("3", 64)}
	}}
	if d, ok := newBuild(buildRes(tracked), pinned).(*Built); !ok || d.Pin != strings.Repeat("3", 64) {
		t.Errorf("a pin from env.Pin: %#v", d)
	}
	if r := NewBuild(declaration.BodyOf[*declaration.Build](buildRes(sampleBuild())), pinned).Verdict(nil); r.Verdict != observation.Undetermined || !strings.Contains(r.Reason, "no resource") {
		t.Errorf("no env.Resource: %+v", r)
	}
}
