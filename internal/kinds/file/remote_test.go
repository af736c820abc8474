package file

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// The blake3 and SHA-512 of "tool v1\n".
const (
	toolB3  = "853bd2ecc2e9cfa7c54b694dfa5afc17610542e08965d1427ac2bbfc66db0ed0"
	toolSHA = "aa"
)

// TestRemoteFileVerdict: a remote file placed whole is compared by SHA-512
// when the cache holds the pinned bytes, else by the blake3 of its bytes
// read back (remembered on a match); the file rules hold otherwise.
func TestRemoteFileVerdict(t *testing.T) {
	ok := func(sha string) detect.Answer { return detect.Answer{Status: detect.StatusOK, SHA512: sha} }
	reg := detect.Answer{Status: detect.StatusOK, Type: detect.TypeRegular}
	tests := []struct {
		name     string
		cached   bool
		a        []detect.Answer
		want     observation.Verdict
		observed string
		remember bool
	}{
		{"cached, same digest", true, []detect.Answer{ok(toolSHA), reg}, observation.Converged, "", false},
		{"cached, another digest", true, []detect.Answer{ok("bb"), reg}, observation.Drifted, "observed sha512 bb", false},
		{"uncached, the pinned bytes", false, []detect.Answer{ok("bb"), reg, {Status: detect.StatusOK, Content: "tool v1\n"}}, observation.Converged, "", true},
		{"uncached, other bytes", false, []detect.Answer{ok("bb"), reg, {Status: detect.StatusOK, Content: "hand edit\n"}}, observation.Drifted,
			"observed blake3 cfc7c7a42bec8a1ba7223d142a9c8103d2d308818773c311429b548f2d976dc6", false},
		{"uncached, too long to read back", false, []detect.Answer{ok("bb"), reg, {Status: detect.StatusOK, Content: "x", Over: true}}, observation.Drifted, "not read back", false},
		{"nothing there", false, []detect.Answer{{Status: detect.StatusMissing}, {Status: detect.StatusMissing}, {Status: detect.StatusMissing}}, observation.Absent, "", false},
		{"a link to a file", true, []detect.Answer{{Status: detect.StatusNotRegular, Type: detect.TypeSymlink}, reg}, observation.Drifted, "symbolic link", false},
		{"a directory", true, []detect.Answer{{Status: detect.StatusNotRegular, Type: detect.TypeDirectory}, {Status: detect.StatusOK, Type: detect.TypeDirectory}}, observation.Undetermined, "", false},
		{"swapped before the read-back", false, []detect.Answer{ok("bb"), reg, {Status: detect.StatusNotRegular, Type: detect.TypeSymlink}}, observation.Undetermined, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var remembered string
			f := &RemoteFile{File: File{Path: "/opt/tool", Shown: "/opt/tool"}, Pin: detect.Pin{Blake3: toolB3},
				Remember: func(pin string, data []byte) { remembered = pin + " " + string(data) }}
			if tt.cached {
				f.Pin.SHA512 = toolSHA
			}
			if n := len(f.Queries()); n != len(tt.a) {
				t.Fatalf("%d queries, the table gives %d answers", n, len(tt.a))
			}
			r := f.Verdict(tt.a)
			if r.Verdict != tt.want {
				t.Fatalf("verdict %s (%s), want %s", r.Verdict, r.Reason, tt.want)
			}
			if r.Verdict != observation.Undetermined && r.Pin != toolB3 {
				t.Errorf("pin %q, want the pin", r.Pin)
			}
			if tt.observed != "" {
				if len(r.Drift) == 0 || !strings.Contains(r.Drift[0].Observed, tt.observed) {
					t.Errorf("drift %+v, want one observing %q", r.Drift, tt.observed)
				}
			}
			if got := remembered != ""; got != tt.remember {
				t.Errorf("remembered %q, want remembered %v", remembered, tt.remember)
			}
			if tt.remember && remembered != toolB3+" tool v1\n" {
				t.Errorf("remembered %q", remembered)
			}
		})
	}
}

// TestRemoteProvenance: the sentinel's provenance is fixed for a pin and
// extract form, and moves with each of them.
func TestRemoteProvenance(t *testing.T) {
	one, two := 1, 2
	gz := &declaration.Extract{Type: declaration.ExtractTarGZ, StripComponents: &one}
	base := RemoteProvenance(toolB3, gz)
	if len(base) != 64 || strings.Trim(base, "0123456789abcdef") != "" {
		t.Fatalf("provenance %q is not 64 lowercase hex digits", base)
	}
	if base != RemoteProvenance(toolB3, &declaration.Extract{Type: declaration.ExtractTarGZ, StripComponents: &one}) {
		t.Error("the same pin and form give two provenances")
	}
	// The sentinels on targets hold this: a change to the encoding is a
	// new version of its tag, and re-extracts every tree once.
	if base != "8c90b8c7e858ba0ea3237e35537300a73212180cecd43dedcc0c13c5b1c44be5" {
		t.Errorf("provenance is %s: the encoding changed", base)
	}
	others := map[string]string{
		"another pin":   RemoteProvenance(strings.Repeat("0", 64), gz),
		"another form":  RemoteProvenance(toolB3, &declaration.Extract{Type: declaration.ExtractTarXZ, StripComponents: &one}),
		"another strip": RemoteProvenance(toolB3, &declaration.Extract{Type: declaration.ExtractTarGZ, StripComponents: &two}),
		"no strip":      RemoteProvenance(toolB3, &declaration.Extract{Type: declaration.ExtractTarGZ}),
	}
	for name, p := range others {
		if p == base {
			t.Errorf("%s gives the same provenance", name)
		}
	}
}

// TestRemoteTreeVerdict: an extracted tree is compared through its
// sentinel; without one it is absent when empty and holds otherwise; a
// link or anything but a directory holds.
func TestRemoteTreeVerdict(t *testing.T) {
	gz := &declaration.Extract{Type: declaration.ExtractTarGZ}
	want := RemoteProvenance(toolB3, gz)
	dir := detect.Answer{Status: detect.StatusOK, Type: detect.TypeDirectory, Mode: 0o755, Owner: "root", Group: "root"}
	probe := func(s string) detect.Answer { return detect.Answer{Status: detect.StatusOK, Output: s + "\n"} }
	tests := []struct {
		name string
		a    []detect.Answer
		want observation.Verdict
		why  string
	}{
		{"its sentinel", []detect.Answer{dir, {Status: detect.StatusOK, Content: want + "\n"}, probe("full")}, observation.Converged, ""},
		{"another provenance", []detect.Answer{dir, {Status: detect.StatusOK, Content: strings.Repeat("a", 64)}, probe("full")}, observation.Drifted, "another pin"},
		{"a sentinel too long", []detect.Answer{dir, {Status: detect.StatusOK, Content: want, Over: true}, probe("full")}, observation.Drifted, "over 4096"},
		{"nothing there", []detect.Answer{{Status: detect.StatusMissing}, {Status: detect.StatusMissing}, probe("none")}, observation.Absent, ""},
		{"an empty directory", []detect.Answer{dir, {Status: detect.StatusMissing}, probe("empty")}, observation.Absent, ""},
		{"a directory of someone else's", []detect.Answer{dir, {Status: detect.StatusMissing}, probe("full")}, observation.Undetermined, "didn't extract"},
		{"a link at the sentinel", []detect.Answer{dir, {Status: detect.StatusNotRegular, Type: detect.TypeSymlink}, probe("full")}, observation.Undetermined, "didn't extract"},
		{"a link at the path", []detect.Answer{{Status: detect.StatusOK, Type: detect.TypeSymlink}, {Status: detect.StatusOK, Content: want}, probe("none")}, observation.Undetermined, "symbolic link"},
		{"a file at the path", []detect.Answer{{Status: detect.StatusOK, Type: detect.TypeRegular}, {Status: detect.StatusMissing}, probe("none")}, observation.Undetermined, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &RemoteTree{Path: "/opt/zig", Shown: "/opt/zig", Pin: detect.Pin{Blake3: toolB3}, Want: want}
			r := tr.Verdict(tt.a)
			if r.Verdict != tt.want {
				t.Fatalf("verdict %s (%s), want %s", r.Verdict, r.Reason, tt.want)
			}
			text := r.Reason
			for _, d := range r.Drift {
				text += " " + d.Observed
			}
			if !strings.Contains(text, tt.why) {
				t.Errorf("%q doesn't say %q", text, tt.why)
			}
		})
	}
}

// FuzzRemoteSentinel: whatever a sentinel holds, the tree converges only
// when it trims to the desired provenance and isn't over the bound, and
// drifts otherwise; the verdict never holds a directory with a sentinel.
func FuzzRemoteSentinel(f *testing.F) {
	want := RemoteProvenance(toolB3, &declaration.Extract{Type: declaration.ExtractTarXZ})
	f.Add(want+"\n", false)
	f.Add("  "+want+"\t\n", false)
	f.Add(want, true)
	f.Add(strings.ToUpper(want), false)
	f.Add("", false)
	f.Fuzz(func(t *testing.T, content string, over bool) {
		tr := &RemoteTree{Path: "/opt/x", Shown: "/opt/x", Pin: detect.Pin{Blake3: toolB3}, Want: want}
		dir := detect.Answer{Status: detect.StatusOK, Type: detect.TypeDirectory, Mode: 0o755}
		r := tr.Verdict([]detect.Answer{dir, {Status: detect.StatusOK, Content: content, Over: over}, {Status: detect.StatusOK, Output: "full\n"}})
		same := strings.TrimSpace(content) == want && !over
		switch {
		case same && r.Verdict != observation.Converged, !same && r.Verdict != observation.Drifted:
			t.Fatalf("sentinel %q (over %v): %s %q", content, over, r.Verdict, r.Reason)
		case r.Pin != toolB3:
			t.Fatalf("pin %q", r.Pin)
		}
	})
}
