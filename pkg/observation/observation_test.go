package observation

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
)

const decl = `{"format":"zap.declaration/1","resources":[` +
	`{"content":{"content":"hi\n","type":"inline"},"id":"motd","mode":"644","path":"/etc/motd","type":"file"},` +
	`{"id":"app","path":{"$env":"APP"},"type":"directory"}` +
	`],"target":{"local":true}}`

// obs writes observations around decl with the given resources list and
// extra top-level fields.
func obs(resources, extra string) string {
	return `{"format":"zap.observations/1","batches":[{"lane":"login","queries":2}],` +
		`"context":{"home":"/home/alice","target":"local","user":"alice"},"declaration":` + decl + extra +
		`,"resources":[` + resources + `]}`
}

const twoVerdicts = `{"id":"motd","verdict":"converged"},{"id":"app","verdict":"absent"}`

func TestReadAccepts(t *testing.T) {
	in := `{"format":"zap.observations/1","batches":[{"lane":"login","queries":2},{"lane":"elevated","queries":1},{"lane":"root","queries":1}],` +
		`"context":{"home":"/home/alice","target":"local","user":"alice"},"declaration":` + decl + `,` +
		`"references":[{"name":"APP","value":"/srv/app"},{"name":"TOKEN","secret":true}],` +
		`"resources":[{"drift":[{"desired":"644","field":"mode","observed":"600"}],"id":"motd","verdict":"drifted"},` +
		`{"id":"app","reason":"stat /srv/app: permission denied","verdict":"undetermined"}],"unresolved":["OTHER"]}`
	o, err := Read([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if o.Context.User != "alice" || len(o.References) != 2 || !o.References[1].Secret || o.Resources[0].Drift[0].Observed != "600" || o.Batches[1].Lane != LaneElevated {
		t.Errorf("decoded as %+v", o)
	}
	out, err := o.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("Encode\n got %s\nwant %s", out, in)
	}
}

func TestReadRefuses(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"another version", strings.Replace(obs(twoVerdicts, ""), "zap.observations/1", "zap.observations/2", 1),
			`format: this reader reads "zap.observations/1", not "zap.observations/2"`},
		{"a declaration", decl, `format: this reader reads "zap.observations/1", not "zap.declaration/1"`},
		{"format not first", `{"batches":[],"format":"zap.observations/1"}`, `format: the document's first field must be "format" (want "zap.observations/1")`},
		{"unknown field", obs(twoVerdicts, `,"extra":true`), `extra: unknown field`},
		{"unknown context field", strings.Replace(obs(twoVerdicts, ""), `"user":"alice"`, `"user":"alice","uid":1000`, 1), `context.uid: unknown field`},
		{"context user missing", strings.Replace(obs(twoVerdicts, ""), `,"user":"alice"`, ``, 1), `context.user: required field missing`},
		{"a marker's unknown action", obs(twoVerdicts, `,"pending":[{"action":"stop","service":"nginx"}]`), `pending[0] (nginx).action: "stop" is neither restart nor reload`},
		{"markers out of order", obs(twoVerdicts, `,"pending":[{"action":"reload","service":"web"},{"action":"reload","service":"nginx"}]`), `pending[1] (nginx): the markers must be sorted by service, each once`},
		{"a marker with no service", obs(twoVerdicts, `,"pending":[{"action":"reload","service":""}]`), `pending[0].service: empty`},
		{"an unknown marker field", obs(twoVerdicts, `,"pending":[{"action":"reload","service":"a","at":1}]`), `pending[0].at: unknown field`},
		{"unknown reference field", obs(twoVerdicts, `,"references":[{"name":"APP","value":"x"},{"name":"B","val":"y"}]`), `references[1].val: unknown field`},
		{"reference name a number", obs(twoVerdicts, `,"references":[{"name":1}]`), `references[0].name: want string, not a JSON number`},
		{"reference without a name", obs(twoVerdicts, `,"references":[{"secret":true}]`), `references[0].name: required field missing`},
		{"references not a list", obs(twoVerdicts, `,"references":{}`), `references: want list, not a JSON object`},
		{"queries a fraction", strings.Replace(obs(twoVerdicts, ""), `"queries":2`, `"queries":2.5`, 1), `batches[0].queries: want int, not a JSON number 2.5`},
		{"batches missing", strings.Replace(obs(twoVerdicts, ""), `"batches":[{"lane":"login","queries":2}],`, ``, 1), `batches: required field missing`},
		{"unknown verdict field", obs(`{"id":"motd","verdict":"converged","why":"x"},{"id":"app","verdict":"absent"}`, ""), `resources[0] (motd).why: unknown field`},
		{"verdict missing", obs(`{"id":"motd","verdict":"converged"},{"id":"app"}`, ""), `resources[1] (app).verdict: required field missing`},
		{"drift field a number", obs(`{"id":"motd","verdict":"drifted","drift":[{"field":1,"observed":"a","desired":"b"}]},{"id":"app","verdict":"absent"}`, ""),
			`resources[0] (motd).drift[0].field: want string, not a JSON number`},
		{"drift without desired", obs(`{"id":"motd","verdict":"drifted","drift":[{"field":"mode","observed":"a"}]},{"id":"app","verdict":"absent"}`, ""),
			`resources[0] (motd).drift[0].desired: required field missing`},
		{"null verdict", obs(`{"id":"motd","verdict":"converged"},{"id":"app","verdict":null}`, ""), `resources[1] (app).verdict: null is not a value here; leave the field out instead`},
		{"duplicate key in a verdict", obs(`{"id":"motd","verdict":"converged","verdict":"absent"},{"id":"app","verdict":"absent"}`, ""), `resources[0] (motd).verdict: field given twice`},
		{"null in the declaration", strings.Replace(obs(twoVerdicts, ""), `"mode":"644"`, `"mode":null`, 1),
			`declaration.resources[0] (motd).mode: null is not a value here; leave the field out instead`},
		{"type error in the declaration", strings.Replace(obs(twoVerdicts, ""), `"mode":"644"`, `"mode":644`, 1),
			`declaration.resources[0] (motd).mode: want string, not a JSON number`},
		{"an invalid declaration", strings.Replace(obs(twoVerdicts, ""), `"mode":"644"`, `"mode":"8"`, 1),
			`declaration: resource "motd": mode: "8" is not an octal mode of 7777 at most, such as "644"`},

		// Validate
		{"too few verdicts", obs(`{"id":"motd","verdict":"converged"}`, ""), `resources: 1 verdicts for 2 declared resources`},
		{"too many verdicts", obs(twoVerdicts+`,{"id":"x","verdict":"absent"}`, ""), `resources: 3 verdicts for 2 declared resources`},
		{"verdicts out of order", obs(`{"id":"app","verdict":"absent"},{"id":"motd","verdict":"converged"}`, ""),
			`resources[0].id: "app", but the declaration's resource 0 is "motd"`},
		{"an id the declaration lacks", obs(`{"id":"motd","verdict":"converged"},{"id":"other","verdict":"absent"}`, ""),
			`resources[1].id: "other", but the declaration's resource 1 is "app"`},
		{"unknown verdict", obs(`{"id":"motd","verdict":"present"},{"id":"app","verdict":"absent"}`, ""), `resources[0] (motd).verdict: unknown verdict "present"`},
		{"empty verdict", obs(`{"id":"motd","verdict":""},{"id":"app","verdict":"absent"}`, ""), `resources[0] (motd).verdict: unknown verdict ""`},
		{"undetermined without a reason", obs(`{"id":"motd","verdict":"converged"},{"id":"app","verdict":"undetermined"}`, ""),
			`resources[1] (app): an undetermined verdict needs a reason`},
		{"a pin on a resource that fetches nothing", obs(`{"id":"motd","verdict":"converged","pin":"`+strings.Repeat("a", 64)+`"},{"id":"app","verdict":"absent"}`, ""),
			`resources[0] (motd).pin: 64 lowercase hex digits, for a resource that fetches only`},
		{"unknown lane", strings.Replace(obs(twoVerdicts, ""), `"lane":"login"`, `"lane":"sudo"`, 1), `batches[0].lane: unknown lane "sudo"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Read([]byte(tt.in))
			if err == nil {
				t.Fatalf("Read accepted %s as %+v, want %q", tt.in, o, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Read\n got %q\nwant %q", err, tt.want)
			}
			// ReadKnown, knowing decl, refuses the same way.
			o, err = ReadKnown([]byte(tt.in), readDecl(t), []byte(decl+"\n"))
			if err == nil || err.Error() != tt.want {
				t.Errorf("ReadKnown: %+v, %v, want %q", o, err, tt.want)
			}
		})
	}
}

func readDecl(t *testing.T) *declaration.Declaration {
	t.Helper()
	d, err := declaration.Read([]byte(decl))
	if err == nil {
		err = d.Validate()
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestReadKnown: observations carrying the known declaration byte for byte
// read as Read reads them, the declaration the known one (its lists
// shared, not decoded again); any other declaration is decoded.
func TestReadKnown(t *testing.T) {
	in := obs(twoVerdicts, `,"references":[{"name":"APP","value":"/srv/app"}]`)
	want, err := Read([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	d := readDecl(t)
	got, err := ReadKnown([]byte(in), d, []byte(decl+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadKnown\n got %+v\nwant %+v", got, want)
	}
	if &got.Declaration.Resources[0] != &d.Resources[0] {
		t.Error("the known declaration was decoded again")
	}

	// Another declaration (a byte apart) is decoded.
	other := strings.Replace(in, `"/etc/motd"`, `"/etc/motd2"`, 1)
	got, err = ReadKnown([]byte(other), d, []byte(decl))
	if err != nil {
		t.Fatal(err)
	}
	if declaration.BodyOf[*declaration.File](&got.Declaration.Resources[0]).Path.String() != "/etc/motd2" || &got.Declaration.Resources[0] == &d.Resources[0] {
		t.Errorf("another declaration read as %+v", got.Declaration.Resources[0])
	}
	if declaration.BodyOf[*declaration.File](&d.Resources[0]).Path.String() != "/etc/motd" {
		t.Error("the known declaration changed")
	}
}

func TestEncodeEmptyLists(t *testing.T) {
	o := &Observations{
		Format:      Format,
		Declaration: declaration.Declaration{Format: declaration.Format, Target: declaration.Target{Local: true}},
		Context:     Context{Target: "local", User: "u"},
	}
	out, err := o.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":"zap.observations/1","batches":[],"context":{"target":"local","user":"u"},"declaration":{"format":"zap.declaration/1","resources":[],"target":{"local":true}},"resources":[]}`
	if string(out) != want {
		t.Errorf("Encode\n got %s\nwant %s", out, want)
	}
	if _, err := Read(out); err != nil {
		t.Errorf("Read refuses what Encode wrote: %v", err)
	}
}

// canonicalSeeds decode and encode back to exactly their own bytes.
var canonicalSeeds = []string{
	`{"format":"zap.observations/1","batches":[],"context":{"target":"local","user":""},"declaration":{"format":"zap.declaration/1","resources":[],"target":{"local":true}},"resources":[]}`,
	`{"format":"zap.observations/1","batches":[{"lane":"login","queries":2},{"lane":"elevated","queries":1}],` +
		`"context":{"home":"/home/alice","target":"local","user":"alice"},"declaration":` + decl + `,` +
		`"references":[{"name":"APP","value":"/srv/\u2028app"},{"name":"TOKEN","secret":true}],` +
		`"resources":[{"drift":[{"desired":"644","field":"mode","observed":"600"},{"desired":"sha512:ab","field":"content","observed":"sha512:cd"}],"id":"motd","verdict":"drifted"},` +
		`{"id":"app","reason":"stat: <denied>","verdict":"undetermined"}],"unresolved":["OTHER"]}`,
}

func TestCanonicalSeedsReproduce(t *testing.T) {
	for _, s := range canonicalSeeds {
		if c, err := canon.Transform([]byte(s)); err != nil || string(c) != s {
			t.Fatalf("seed is not canonical:\n%s\n%s", s, c)
		}
		o, err := Read([]byte(s))
		if err != nil {
			t.Fatalf("Read(%s): %v", s, err)
		}
		out, err := o.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != s {
			t.Errorf("decode then encode\n got %s\nwant %s", out, s)
		}
	}
}

// FuzzObservationsRoundTrip checks that what Read accepts encodes to bytes
// Read accepts again and that encode to the same bytes, and that a canonical
// input with no empty optional field reproduces itself.
func FuzzObservationsRoundTrip(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		obs(twoVerdicts, `,"references":[],"unresolved":[]`),
		obs(`{"id":"motd","verdict":"converged","reason":"","drift":[]},{"id":"app","verdict":"absent"}`, ""),
		obs(`{"id":"motd","verdict":"converged"},{"id":"app","verdict":"undetermined"}`, ""),
		obs(twoVerdicts, `,"references":[{"name":"A","secret":false,"value":""}]`),
		obs(twoVerdicts, `,"pending":[{"action":"reload","service":"nginx"},{"action":"restart","service":"web"}],"warnings":["a marker"]`),
		obs(twoVerdicts, `,"pending":[],"warnings":[]`),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		o, err := Read(in)
		if err != nil {
			return
		}
		out, err := o.Encode()
		if err != nil {
			t.Fatalf("Encode of what Read accepted: %v", err)
		}
		o2, err := Read(out)
		if err != nil {
			t.Fatalf("Read refuses what Encode wrote: %v\n  input %q\nencoded %q", err, in, out)
		}
		out2, err := o2.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatalf("encoding is not stable:\n once %q\ntwice %q", out, out2)
		}
	})
}

// TestElementsDecodeStrictlyAlone checks the element types are strict when a
// document embeds them outside Observations (the plan carries the context,
// the references and the drift).
func TestElementsDecodeStrictlyAlone(t *testing.T) {
	tests := []struct {
		into any
		in   string
		want string
	}{
		{&Context{}, `{"target":"local"}`, `user: required field missing`},
		{&Context{}, `{"target":"local","user":"u","User":"v"}`, `User: unknown field`},
		{&[]Reference{}, `[{"value":"x"}]`, `[0].name: required field missing`},
		{&[]Batch{}, `[{"lane":"login"}]`, `[0].queries: required field missing`},
		{&Resource{}, `{"id":"a","verdict":"absent","Reason":"x"}`, `Reason: unknown field`},
		{&[]Resource{}, `[{"id":"a","verdict":"absent","Reason":"x"}]`, `[0] (a).Reason: unknown field`},
		{&[]Difference{}, `[{"field":"mode","observed":"1"}]`, `[0].desired: required field missing`},
	}
	for _, tt := range tests {
		err := strict.Decode([]byte(tt.in), tt.into)
		if err == nil || err.Error() != tt.want {
			t.Errorf("decode %s into %T: %v, want %q", tt.in, tt.into, err, tt.want)
		}
	}
}

// FuzzWellFormedDecode checks that decoding observations known to be
// well-formed (the way Read decodes them, their strings not read again)
// gives what the checking decode gives: the same value or the same error.
func FuzzWellFormedDecode(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(obs(twoVerdicts, `,"references":[{"name":"A\"","value":"\\"}]`)))
	f.Add([]byte(obs(`{"id":"motd","verdict":"converged","Reason":"x"},{"id":"app","verdict":"absent"}`, "")))
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		var checked, wellFormed Observations
		err1 := checked.DecodeField("", in)
		err2 := wellFormed.DecodeWellFormed("", in)
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("DecodeField: %v, DecodeWellFormed: %v", err1, err2)
		}
		if err1 == nil && !reflect.DeepEqual(checked, wellFormed) {
			t.Fatalf("DecodeField %+v, DecodeWellFormed %+v", checked, wellFormed)
		}
		// Read's reader decodes as DecodeField does.
		var o Observations
		err3 := (&reader{o: &o}).DecodeWellFormed("", in)
		if (err1 == nil) != (err3 == nil) || err1 != nil && err1.Error() != err3.Error() {
			t.Fatalf("DecodeField: %v, the reader: %v", err1, err3)
		}
		if err1 == nil && !reflect.DeepEqual(checked, o) {
			t.Fatalf("DecodeField %+v, the reader %+v", checked, o)
		}
	})
}
