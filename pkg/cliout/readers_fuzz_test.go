package cliout

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/canon"
)

// docExample is the canonical form of docs/protocol.md's example name, for
// a fuzz target's seeds.
func docExample(tb testing.TB, name string) json.RawMessage {
	tb.Helper()
	data, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		tb.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "<!-- example: "+name+" -->\n```json\n")
	if !ok {
		tb.Fatalf("docs/protocol.md: no %s example", name)
	}
	block, _, _ := strings.Cut(rest, "```")
	c, err := canon.Transform([]byte(block))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// readerRoundTrips is FuzzReadDeploy's promise for another reader: what
// read accepts encodes to a document it accepts again, byte for byte the
// same on the next round, and no input makes it panic.
func readerRoundTrips[D any](t *testing.T, in []byte, read func([]byte) (D, error)) {
	d, err := read(in)
	if err != nil {
		return
	}
	b, err := Encode(d)
	if err != nil {
		t.Fatalf("Encode of what the reader accepted: %v", err)
	}
	d2, err := read(b)
	if err != nil {
		t.Fatalf("the reader refuses what Encode wrote: %v\n input %q\n   out %s", err, in, b)
	}
	if b2, _ := Encode(d2); string(b) != string(b2) {
		t.Fatalf("Encode is not stable: %s, then %s", b, b2)
	}
}

// FuzzReadPlan: ReadPlan's documents round-trip (readerRoundTrips).
func FuzzReadPlan(f *testing.F) {
	p := docExample(f, "plan")
	var v struct {
		Hash string `json:"plan_hash"`
	}
	json.Unmarshal(p, &v)
	for _, d := range []*Plan{
		{Format: PlanFormat, Command: "apply", Exit: 2, PlanHash: v.Hash, Plan: p, Lock: fullLock, Unbindable: []string{"HOST"}, Unrecorded: true},
		{Format: PlanFormat, Command: "plan", Exit: 2, Error: "zap.ts:3: bad", Hints: []string{"fix it"}},
	} {
		b, _ := Encode(d)
		f.Add(b)
	}
	f.Add([]byte(`{"format":"zap.cli-plan/1","command":"plan","exit":0,"lock":{},"plan":{},"plan_hash":""}`))
	f.Fuzz(func(t *testing.T, in []byte) { readerRoundTrips(t, in, readPlan) })
}

// FuzzReadDetect: ReadDetect's documents round-trip (readerRoundTrips).
func FuzzReadDetect(f *testing.F) {
	o := docExample(f, "observations")
	for _, d := range []*Detect{
		{Format: DetectFormat, Exit: 1, Observations: o, Resources: []Verdict{
			{ID: "notes", Type: "directory", Verdict: "drifted", Drift: []string{"mode"}},
			{ID: "motd", Type: "file", Verdict: "absent"},
			{ID: "latest", Type: "link", Verdict: "absent"},
			{ID: "greet", Type: "script", Verdict: "absent"},
		}, Lock: &Lock{NoLock: true, Tracked: 1}, Unrecorded: true},
		{Format: DetectFormat, Exit: 1, Error: "cannot connect to h: refused"},
	} {
		b, _ := Encode(d)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) { readerRoundTrips(t, in, readDetect) })
}

// FuzzReadStatus: ReadStatus's documents round-trip (readerRoundTrips).
func FuzzReadStatus(f *testing.F) {
	for _, d := range []*Status{
		{Format: StatusFormat, Exit: 1, Host: "local",
			Last:      &Last{Time: "2026-01-02T03:04:05Z", Command: "refused", User: "alice", Preview: true, PlanHash: strings.Repeat("d", 64), Unresolved: []string{"A"}},
			Resources: []StatusResource{{ID: "a", Type: "file", Verdict: "undetermined", Changed: true, Secret: true}, {ID: "b", Type: "script"}},
			Orphans:   []string{"old"}, UnresolvedNow: []string{"A"}, Lock: fullLock},
		{Format: StatusFormat, Exit: 2, Error: "bad config", Hints: []string{"h"}},
	} {
		b, _ := Encode(d)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) { readerRoundTrips(t, in, ReadStatus) })
}
