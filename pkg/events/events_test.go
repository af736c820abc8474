package events

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func intp(i int) *int { return &i }

// everyType is one well-formed event of each type, as zap-exec and the front
// end write them, with the line Marshal writes for it.
var everyType = []struct {
	e    Event
	line string
}{
	{Event{Event: RunStarted, Format: Format, PlanHash: "2f20eb4250949f7d13097046df7f1373ce17c6ac3dd9e44244c328fb9a28edd5", Changes: 2},
		`{"event":"run_started","format":"zap.events/1","plan_hash":"2f20eb4250949f7d13097046df7f1373ce17c6ac3dd9e44244c328fb9a28edd5","changes":2}`},
	{Event{Event: ChangeStarted, ID: "motd", Type: "file", Action: "update"},
		`{"event":"change_started","id":"motd","type":"file","action":"update"}`},
	{Event{Event: StepStarted, ID: "motd", Step: 1, Summary: "= put /etc/motd"},
		`{"event":"step_started","id":"motd","step":1,"summary":"= put /etc/motd"}`},
	{Event{Event: StepOK, ID: "motd", Step: 1},
		`{"event":"step_ok","id":"motd","step":1}`},
	{Event{Event: StepFailed, ID: "build", Step: 1, Output: "make: *** [all] Error 2\n", Error: "command exited 2", Code: ExecutionFailed, Exit: intp(2)},
		`{"event":"step_failed","id":"build","step":1,"output":"make: *** [all] Error 2\n","error":"command exited 2","code":"execution_failed","exit":2}`},
	{Event{Event: StepSkipped, ID: "build", Step: 2, Reason: "nothing to do"},
		`{"event":"step_skipped","id":"build","step":2,"reason":"nothing to do"}`},
	{Event{Event: ChangeOK, ID: "motd", Type: "file"},
		`{"event":"change_ok","id":"motd","type":"file"}`},
	{Event{Event: ChangeFailed, ID: "build", Type: "script", Error: "command exited 2", Code: ExecutionFailed},
		`{"event":"change_failed","id":"build","type":"script","error":"command exited 2","code":"execution_failed"}`},
	{Event{Event: ChangeSkipped, ID: "later", Type: "script", Reason: "an earlier change failed"},
		`{"event":"change_skipped","id":"later","type":"script","reason":"an earlier change failed"}`},
	{Event{Event: RunOK, OK: 2},
		`{"event":"run_ok","ok":2}`},
	{Event{Event: RunFailed, OK: 1, Failed: 1, Skipped: 1},
		`{"event":"run_failed","ok":1,"failed":1,"skipped":1}`},
	{Event{Event: Held, ID: "app", Type: "directory", Reason: "stat /srv/app: permission denied"},
		`{"event":"held","id":"app","type":"directory","reason":"stat /srv/app: permission denied"}`},
	{Event{Event: Residual, ID: "motd", Type: "file", Reason: "drifted"},
		`{"event":"residual","id":"motd","type":"file","reason":"drifted"}`},
	{Event{Event: ObserveFailed, Error: "zap-detect exited 1"},
		`{"event":"observe_failed","error":"zap-detect exited 1"}`},
	{Event{Event: Done, Exit: intp(0), OK: 2},
		`{"event":"done","exit":0,"ok":2}`},
	{Event{Event: Done, Exit: intp(1), OK: 1, Failed: 1, Skipped: 1, Residual: 1, HeldN: 1},
		`{"event":"done","exit":1,"ok":1,"failed":1,"skipped":1,"residual":1,"held":1}`},
}

func TestEveryType(t *testing.T) {
	seen := map[Type]bool{}
	for _, tt := range everyType {
		seen[tt.e.Event] = true
		line, err := tt.e.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if string(line) != tt.line {
			t.Errorf("Marshal\n got %s\nwant %s", line, tt.line)
		}
		e, err := Read(line)
		if err != nil {
			t.Fatalf("Read(%s): %v", line, err)
		}
		again, err := e.Marshal()
		if err != nil || !bytes.Equal(again, line) {
			t.Errorf("Read then Marshal: %s, %v", again, err)
		}
	}
	for _, typ := range []Type{RunStarted, ChangeStarted, StepStarted, StepOK, StepFailed, StepSkipped, ChangeOK,
		ChangeFailed, ChangeSkipped, RunOK, RunFailed, Held, Residual, ObserveFailed, Done} {
		if !seen[typ] {
			t.Errorf("no test event of type %s", typ)
		}
	}
}

func TestEveryCode(t *testing.T) {
	for _, c := range []Code{Transient, Permission, NotFound, Conflict, Permanent, ExecutionFailed} {
		line := `{"event":"step_failed","id":"a","step":1,"error":"e","code":"` + string(c) + `"}`
		if _, err := Read([]byte(line)); err != nil {
			t.Errorf("Read(%s): %v", line, err)
		}
	}
}

func TestReadRefuses(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"run_started without the format", `{"event":"run_started","plan_hash":"x","changes":1}`, `format: run_started must carry "zap.events/1"`},
		{"run_started of another version", `{"event":"run_started","format":"zap.events/2"}`, `format: run_started must carry "zap.events/1"`},
		{"the format on another event", `{"event":"run_ok","format":"zap.events/1","ok":1}`, `format: only run_started carries it`},
		{"unknown event", `{"event":"run_paused"}`, `event: unknown event "run_paused"`},
		{"no event tag", `{"id":"a"}`, `event: unknown event ""`},
		{"unknown code", `{"event":"step_failed","id":"a","step":1,"code":"oops"}`, `code: unknown code "oops"`},
		{"a negative count", `{"event":"run_failed","ok":1,"failed":-1}`, `failed: a count can't be negative`},
		{"a negative step", `{"event":"step_ok","id":"a","step":-2}`, `step: a count can't be negative`},
		{"unknown field", `{"event":"run_ok","ok":1,"duration":3}`, `duration: unknown field`},
		{"a field in another case", `{"event":"run_ok","OK":1}`, `OK: unknown field`},
		{"a tag in another case", `{"Event":"run_ok"}`, `Event: unknown field`},
		{"a second value in another case", `{"event":"run_ok","EVENT":"run_failed"}`, `EVENT: unknown field`},
		{"the Go name of a field", `{"event":"held","HeldN":1}`, `HeldN: unknown field`},
		{"null", `{"event":"step_failed","id":"a","exit":null}`, `exit: null is not a value here; leave the field out instead`},
		{"duplicate key", `{"event":"run_ok","ok":1,"ok":2}`, `ok: field given twice`},
		{"wrong type", `{"event":"run_ok","ok":"2"}`, `ok: want int, not a JSON string`},
		{"a fraction", `{"event":"done","exit":1.5}`, `exit: want int, not a JSON number 1.5`},
		{"not an object", `["run_ok"]`, `(document): want object, not a JSON array`},
		{"two events on a line", `{"event":"run_ok"}{"event":"run_ok"}`, `data after the JSON value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Read([]byte(tt.in))
			if err == nil {
				t.Fatalf("Read(%s) = %+v, want %q", tt.in, e, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Read(%s)\n got %q\nwant %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestMarshalEscapes(t *testing.T) {
	e := &Event{Event: StepFailed, ID: "a", Step: 1, Code: ExecutionFailed,
		Output: "\x1b[31mred\x1b[0m\r\n\u202Etxt.exe\u200B\uFEFF\u2028\U000E0041 <&> \t\x00",
		Error:  "exit 1"}
	line, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"event":"step_failed","id":"a","step":1,"output":"\u001b[31mred\u001b[0m\r\n\u202etxt.exe\u200b\ufeff\u2028\udb40\udc41 <&> \t\u0000","error":"exit 1","code":"execution_failed"}`
	if string(line) != want {
		t.Errorf("Marshal\n got %s\nwant %s", line, want)
	}
	for _, c := range line {
		if c < 0x20 || c > 0x7e {
			t.Fatalf("Marshal left byte %#x unescaped in %q", c, line)
		}
	}
	back, err := Read(line)
	if err != nil {
		t.Fatal(err)
	}
	if back.Output != e.Output {
		t.Errorf("the escaped output decodes to %q, not %q", back.Output, e.Output)
	}
}

func TestMarshalInvalidUTF8(t *testing.T) {
	e := &Event{Event: ObserveFailed, Error: "bad \xff byte"}
	line, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"event":"observe_failed","error":"bad \ufffd byte"}`; string(line) != want {
		t.Errorf("Marshal = %s, want %s", line, want)
	}
	if !json.Valid(line) {
		t.Error("not valid JSON")
	}
}

// FuzzEventRoundTrip checks that an event line Read accepts marshals to a
// line Read accepts again, which marshals to the same bytes, holds no raw
// control or invisible character, and decodes to the same event.
func FuzzEventRoundTrip(f *testing.F) {
	for _, tt := range everyType {
		f.Add([]byte(tt.line))
	}
	for _, s := range []string{
		`{"event":"step_failed","id":"a","output":"\u001b\u202e<&>\ud800","code":"permission","exit":0}`,
		`{"format":"zap.events/1","event":"run_started","changes":0}`,
		` {"event" : "done" , "exit" : -1 } `,
		`{"event":"held","id":"x","type":"file","reason":"` + "\u2066\uFDD0" + `"}`,
		`{"event":"run_ok","ok":1,"ok":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		e, err := Read(in)
		if err != nil {
			return
		}
		line, err := e.Marshal()
		if err != nil {
			t.Fatalf("Marshal of what Read accepted: %v", err)
		}
		if bytes.ContainsAny(line, "\n\r") {
			t.Fatalf("Marshal wrote more than one line: %q", line)
		}
		e2, err := Read(line)
		if err != nil {
			t.Fatalf("Read refuses what Marshal wrote: %v\n input %q\n  line %q", err, in, line)
		}
		line2, err := e2.Marshal()
		if err != nil || !bytes.Equal(line, line2) {
			t.Fatalf("Marshal is not stable: %q, then %q", line, line2)
		}
		if *e != *e2 && !sameExit(e, e2) {
			t.Fatalf("the event changed across a round trip: %+v, then %+v", e, e2)
		}
		// Every key Read accepted must be a field's exact name: a key in
		// another case would be a second spelling of the field.
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(in, &keys); err != nil {
			t.Fatal(err)
		}
		names := fieldNames()
		for k := range keys {
			if !names[k] {
				t.Fatalf("Read accepted the key %q, which no field has", k)
			}
		}
	})
}

// fieldNames returns the JSON names of Event's fields.
func fieldNames() map[string]bool {
	names := map[string]bool{}
	t := reflect.TypeFor[Event]()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names[name] = true
	}
	return names
}

func sameExit(a, b *Event) bool {
	if (a.Exit == nil) != (b.Exit == nil) || (a.Exit != nil && *a.Exit != *b.Exit) {
		return false
	}
	x, y := *a, *b
	x.Exit, y.Exit = nil, nil
	return x == y
}
