package cliout

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/canon"
)

// example is the JSON block after "<!-- example: name -->" in
// docs/protocol.md: a real plan or observations document to embed.
func example(t *testing.T, name string) json.RawMessage {
	t.Helper()
	data, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "<!-- example: "+name+" -->\n```json\n")
	if !ok {
		t.Fatalf("docs/protocol.md: no %s example", name)
	}
	block, _, _ := strings.Cut(rest, "```")
	c, err := canon.Transform([]byte(block))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func planHash(t *testing.T, p json.RawMessage) string {
	var v struct {
		Hash string `json:"plan_hash"`
	}
	if err := json.Unmarshal(p, &v); err != nil || v.Hash == "" {
		t.Fatalf("example plan: no plan_hash (%v)", err)
	}
	return v.Hash
}

// fullLock has every field of Lock and Pin set.
var fullLock = &Lock{Tracked: 2, Pins: []Pin{
	{ID: "tool", Kind: "remote_file", Standing: "missing", Blake3: strings.Repeat("a", 64), Minted: true, Written: true},
	{ID: "key", Kind: "apt_repo", Standing: "unverifiable", Blake3: strings.Repeat("b", 64), Unset: []string{"KEY_URL"}},
	{ID: "gone", Kind: "remote_file", Standing: "orphaned", Blake3: strings.Repeat("c", 64)},
}}

// roundTrip encodes doc, reads it with read and encodes what was read: the
// same bytes, every field kept.
func roundTrip[T any](t *testing.T, doc *T, read func([]byte) (*T, error)) {
	t.Helper()
	b, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := read(b)
	if err != nil {
		t.Fatalf("read: %v\n%s", err, b)
	}
	if !reflect.DeepEqual(got, doc) {
		t.Errorf("read back\n got %+v\nwant %+v", got, doc)
	}
	again, _ := Encode(got)
	if !bytes.Equal(again, b) {
		t.Errorf("encoded again\n got %s\nwant %s", again, b)
	}
	if c, _ := canon.Transform(bytes.TrimSuffix(b, []byte("\n"))); !bytes.Equal(append(c, '\n'), b) {
		t.Errorf("not canonical: %s", b)
	}
}

func readPlan(b []byte) (*Plan, error)     { d, _, err := ReadPlan(b); return d, err }
func readDetect(b []byte) (*Detect, error) { d, _, err := ReadDetect(b); return d, err }

func TestEveryField(t *testing.T) {
	p := example(t, "plan")
	roundTrip(t, &Plan{Format: PlanFormat, Command: "apply", Exit: 2, PlanHash: planHash(t, p), Plan: p,
		Lock: fullLock, Unbindable: []string{"HOST"}, Unrecorded: true}, readPlan)
	roundTrip(t, &Plan{Format: PlanFormat, Command: "plan", Exit: 2, Error: "zap.ts:3: bad", Hints: []string{"fix it"}}, readPlan)

	o := example(t, "observations")
	_, obs, err := ReadDetect(mustEncode(t, &Detect{Format: DetectFormat, Observations: o, Resources: nil, Lock: &Lock{}}))
	if err == nil || obs != nil {
		t.Fatalf("a detect document without its verdicts read: %v", err)
	}
	roundTrip(t, &Detect{Format: DetectFormat, Exit: 1, Observations: o, Resources: []Verdict{
		{ID: "notes", Type: "directory", Verdict: "drifted", Drift: []string{"mode"}},
		{ID: "motd", Type: "file", Verdict: "absent"},
		{ID: "latest", Type: "link", Verdict: "absent"},
		{ID: "greet", Type: "script", Verdict: "absent"},
	}, Lock: &Lock{NoLock: true, Tracked: 1}, Unrecorded: true}, readDetect)
	roundTrip(t, &Detect{Format: DetectFormat, Exit: 1, Error: "cannot connect to h: refused"}, readDetect)

	roundTrip(t, &Status{Format: StatusFormat, Exit: 1, Host: "local",
		Last:      &Last{Time: "2026-01-02T03:04:05Z", Command: "refused", User: "alice", Preview: true, PlanHash: strings.Repeat("d", 64), Unresolved: []string{"A"}},
		Resources: []StatusResource{{ID: "a", Type: "file", Verdict: "undetermined", Changed: true, Secret: true}, {ID: "b", Type: "script"}},
		Orphans:   []string{"old"}, UnresolvedNow: []string{"A"}, Lock: fullLock}, ReadStatus)
	roundTrip(t, &Status{Format: StatusFormat, Exit: 2, Error: "bad config", Hints: []string{"h"}}, ReadStatus)
}

func mustEncode(t *testing.T, doc any) []byte {
	b, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadRefuses(t *testing.T) {
	p := example(t, "plan")
	h := planHash(t, p)
	planDoc := func(extra string) string {
		return `{"format":"zap.cli-plan/1","command":"plan","exit":0,"lock":{},"plan":` + string(p) + `,"plan_hash":"` + h + `"` + extra + `}`
	}
	tests := []struct {
		name, in, want string
		read           func([]byte) error
	}{
		{"unknown field", planDoc(`,"colour":1`), "colour: unknown field", nil},
		{"a field in another case", planDoc(`,"Exit":1`), "Exit: unknown field", nil},
		{"unknown field in the lock", strings.Replace(planDoc(""), `"lock":{}`, `"lock":{"pins":[{"id":"a","kind":"k","standing":"current","age":1}]}`, 1), "lock.pins[0].age: unknown field", nil},
		{"another format", strings.Replace(planDoc(""), "zap.cli-plan/1", "zap.cli-plan/2", 1), `format: this reader reads "zap.cli-plan/1", not "zap.cli-plan/2"`, nil},
		{"null", planDoc(`,"held":null`), "held: null is not a value here; leave the field out instead", nil},
		{"unknown command", strings.Replace(planDoc(""), `"command":"plan"`, `"command":"detect"`, 1), `command: "detect" is not plan or apply`, nil},
		{"another plan_hash", strings.Replace(planDoc(""), `,"plan_hash":"`+h+`"}`, `,"plan_hash":"`+strings.Repeat("0", 64)+`"}`, 1), `plan_hash: "` + strings.Repeat("0", 64) + `" is not the plan's "` + h + `"`, nil},
		{"held the plan doesn't hold", planDoc(`,"held":["x"]`), "held: [x] is not the plan's held []", nil},
		{"no lock", strings.Replace(planDoc(""), `"lock":{},`, ``, 1), "lock: required field missing", nil},
		{"an unknown standing", strings.Replace(planDoc(""), `"lock":{}`, `"lock":{"pins":[{"id":"a","kind":"k","standing":"fresh"}]}`, 1), "lock.pins[0] (a): an id, a kind and a known standing are required", nil},
		{"an error beside a result", planDoc(`,"error":"x"`), "error: a run with a result has no error", nil},
		{"an exit out of range", strings.Replace(planDoc(""), `"exit":0`, `"exit":3`, 1), "exit: 3 is not 0, 1 or 2", nil},
		{"a failure without an error", `{"format":"zap.cli-plan/1","command":"plan","exit":2}`, "error: required field missing (a run with no result)", nil},
		{"a failure exiting 0", `{"format":"zap.cli-plan/1","command":"plan","exit":0,"error":"x"}`, "exit: a failed run doesn't exit 0", nil},
		{"a failure with a result field", `{"format":"zap.cli-plan/1","command":"plan","exit":2,"error":"x","lock":{}}`, "error: a failed run writes no result field", nil},
		{"a plan that doesn't read", strings.Replace(planDoc(""), `"format":"zap.plan/1"`, `"format":"zap.plan/1","extra":1`, 1), "plan: extra: unknown field", nil},
		{"detect: unknown field", `{"format":"zap.cli-detect/1","exit":2,"error":"x","verdicts":[]}`, "verdicts: unknown field", func(b []byte) error { _, _, err := ReadDetect(b); return err }},
		{"detect: a verdict of another resource", `{"format":"zap.cli-detect/1","exit":0,"lock":{},"observations":` + string(example(t, "observations")) +
			`,"resources":[{"id":"motd","type":"file","verdict":"absent"},{"id":"notes","type":"directory","verdict":"drifted","drift":["mode"]},{"id":"latest","type":"link","verdict":"absent"},{"id":"greet","type":"script","verdict":"absent"}]}`,
			"resources[0] (motd): not the observations' verdict of notes", func(b []byte) error { _, _, err := ReadDetect(b); return err }},
		{"detect: held_hints on a detection that read everything", `{"format":"zap.cli-detect/1","exit":0,"held_hints":["h"],"lock":{},"observations":` + string(example(t, "observations")) +
			`,"resources":[{"id":"notes","type":"directory","verdict":"drifted","drift":["mode"]},{"id":"motd","type":"file","verdict":"absent"},{"id":"latest","type":"link","verdict":"absent"},{"id":"greet","type":"script","verdict":"absent"}]}`,
			"held_hints: a detection that read every resource has no hint for what it couldn't read", func(b []byte) error { _, _, err := ReadDetect(b); return err }},
		{"detect: held_hints on a failure", `{"format":"zap.cli-detect/1","exit":1,"error":"x","held_hints":["h"]}`,
			"error: a failed run writes no result field", func(b []byte) error { _, _, err := ReadDetect(b); return err }},
		{"status: unknown verdict", `{"format":"zap.cli-status/1","exit":0,"host":"local","lock":{},"resources":[{"id":"a","type":"file","verdict":"present"}]}`,
			"resources[0] (a): an id, a type and a known verdict are required", func(b []byte) error { _, err := ReadStatus(b); return err }},
		{"status: a last run with no command", `{"format":"zap.cli-status/1","exit":0,"host":"local","last":{"time":"t","command":"run"},"lock":{}}`,
			`last: a time and a known command are required, not "t", "run"`, func(b []byte) error { _, err := ReadStatus(b); return err }},
		{"status: the format not first", `{"exit":1,"format":"zap.cli-status/1","error":"x"}`,
			`format: the document's first field must be "format" (want "zap.cli-status/1")`, func(b []byte) error { _, err := ReadStatus(b); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := tt.read
			if read == nil {
				read = func(b []byte) error { _, _, err := ReadPlan(b); return err }
			}
			err := read([]byte(tt.in))
			if err == nil {
				t.Fatalf("read %s: no error, want %q", tt.in, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("got  %q\nwant %q", err, tt.want)
			}
		})
	}
}
