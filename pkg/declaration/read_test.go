package declaration

import (
	"errors"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/canon"
)

// doc wraps resource objects in a declaration for the local target.
func doc(resources ...string) string {
	return `{"format":"zap.declaration/1","target":{"local":true},"resources":[` + strings.Join(resources, ",") + `]}`
}

const (
	hello   = `{"id":"hello","type":"file","path":"~/hello.txt","content":{"type":"inline","content":"hi\n"}}`
	helloAt = `"id":"hello","type":"file","path":"~/hello.txt","content":{"type":"inline","content":"hi\n"}`
)

func TestReadAccepts(t *testing.T) {
	in := `{"format":"zap.declaration/1","target":{"local":true},"resources":[` +
		`{"id":"hello","type":"file","name":"a greeting","path":"~/hello.txt","content":{"type":"inline","content":"hi\n"},"mode":"644","owner":"alice","group":"staff","validate":"test -s {}","depends_on":["conf"]},` +
		`{"id":"conf","type":"directory","path":{"$text":[{"$env":"APP"},"/conf"]},"mode":"750"},` +
		`{"id":"cur","type":"link","path":"/srv/current","target":{"$env":"RELEASE"}},` +
		`{"id":"build","type":"script","check":"test -x app","run":"make","cwd":"/srv","env":{"TOKEN":{"$env":"TOKEN"},"A":"b"}}` +
		`],"mask":["TOKEN"],"unmask":["APP"]}`
	d, err := Read([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(d.Resources) != 4 || BodyOf[*File](&d.Resources[0]) == nil || BodyOf[*Directory](&d.Resources[1]) == nil || BodyOf[*Link](&d.Resources[2]) == nil || BodyOf[*Script](&d.Resources[3]) == nil {
		t.Fatalf("resources decoded as %+v", d.Resources)
	}
	f := BodyOf[*File](&d.Resources[0])
	if *f.Content.Inline != "hi\n" || f.Mode != "644" || f.Owner != "alice" || f.Group != "staff" || f.Validate.String() != "test -s {}" {
		t.Errorf("file decoded as %+v", f)
	}
	if got := BodyOf[*Directory](&d.Resources[1]).Path.String(); got != "{env:APP}/conf" {
		t.Errorf("directory path %q", got)
	}
	if got := BodyOf[*Script](&d.Resources[3]).Env["TOKEN"]; got.String() != "{env:TOKEN}" {
		t.Errorf("script env %q", got.String())
	}
	out, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want, err := canon.Transform([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(want) {
		t.Errorf("Encode\n got %s\nwant %s", out, want)
	}
}

func TestReadRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the whole error message
	}{
		{"not JSON", `hello`, `not a JSON object`},
		{"not an object", `[]`, `not a JSON object`},
		{"format missing", `{"target":{"local":true},"resources":[]}`,
			`format: the document's first field must be "format" (want "zap.declaration/1")`},
		{"format not first", `{"target":{"local":true},"format":"zap.declaration/1","resources":[]}`,
			`format: the document's first field must be "format" (want "zap.declaration/1")`},
		{"another version", `{"format":"zap.declaration/2","target":{"local":true},"resources":[]}`,
			`format: this reader reads "zap.declaration/1", not "zap.declaration/2"`},
		{"another document", `{"format":"zap.plan/1","target":{"local":true},"resources":[]}`,
			`format: this reader reads "zap.declaration/1", not "zap.plan/1"`},
		{"format not a string", `{"format":1,"target":{"local":true},"resources":[]}`, `format: want a string ("zap.declaration/1")`},
		{"format null", `{"format":null,"target":{"local":true},"resources":[]}`, `format: want a string ("zap.declaration/1")`},
		{"unknown top-level field", `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"extra":1}`,
			`extra: unknown field`},
		{"unknown target field", `{"format":"zap.declaration/1","target":{"local":true,"sudo":true},"resources":[]}`,
			`target.sudo: unknown field`},
		{"unknown resource field", doc(`{` + helloAt + `,"bogus":1}`), `resources[0] (hello).bogus: unknown field`},
		{"unknown content field", doc(`{"id":"hello","type":"file","path":"/x","content":{"type":"inline","content":"","encoding":"b64"}}`),
			`resources[0] (hello).content.encoding: unknown field`},
		{"field of another kind", doc(`{"id":"d","type":"directory","path":"/x","content":{"type":"inline","content":""}}`),
			`resources[0] (d).content: unknown field`},
		{"unknown type", doc(`{"id":"p","type":"pkg","name":"curl"}`), `resources[0] (p).type: unknown resource type "pkg"`},
		{"a package with no from", doc(`{"id":"p","type":"package","name":"curl"}`), `resources[0] (p).from: required field missing`},
		{"unknown content type", doc(`{"id":"f","type":"file","path":"/x","content":{"type":"ftp"}}`),
			`resources[0] (f).content.type: unknown content type "ftp"`},
		{"mode a number", doc(`{` + helloAt + `,"mode":644}`), `resources[0] (hello).mode: want string, not a JSON number`},
		{"local a string", `{"format":"zap.declaration/1","target":{"local":"yes"},"resources":[]}`,
			`target.local: want bool, not a JSON string`},
		{"port a string", `{"format":"zap.declaration/1","target":{"host":"h","port":"22"},"resources":[]}`,
			`target.port: want int, not a JSON string`},
		{"port a fraction", `{"format":"zap.declaration/1","target":{"host":"h","port":22.5},"resources":[]}`,
			`target.port: want int, not a JSON number 22.5`},
		{"resources an object", `{"format":"zap.declaration/1","target":{"local":true},"resources":{}}`,
			`resources: want list, not a JSON object`},
		{"a resource not an object", doc(`"hello"`), `resources[0]: want an object`},
		{"id a number", doc(`{"id":5,"type":"file"}`), `resources[0].id: want string, not a JSON number`},
		{"depends_on not a list", doc(`{` + helloAt + `,"depends_on":"x"}`), `resources[0] (hello).depends_on: want list, not a JSON string`},
		{"depends_on of numbers", doc(`{` + helloAt + `,"depends_on":[1]}`), `resources[0] (hello).depends_on: want string, not a JSON number`},
		{"env not an object", doc(`{"id":"s","type":"script","check":"c","run":"r","env":["A"]}`), `resources[0] (s).env: want an object`},
		{"env value a number", doc(`{"id":"s","type":"script","check":"c","run":"r","env":{"A":1}}`),
			`resources[0] (s).env.A: want a string, {"$env": NAME} or {"$text": [...]}`},
		{"path a number", doc(`{"id":"f","type":"file","path":7,"content":{"type":"inline","content":""}}`),
			`resources[0] (f).path: want a string, {"$env": NAME} or {"$text": [...]}`},
		{"bad reference in a path", doc(`{"id":"f","type":"file","path":{"$env":"1X"},"content":{"type":"inline","content":""}}`),
			`resources[0] (f).path: $env: "1X" is not an environment variable name (letters, digits and _, not starting with a digit)`},
		{"null at the top", `{"format":"zap.declaration/1","target":null,"resources":[]}`,
			`target: null is not a value here; leave the field out instead`},
		{"null in a resource", doc(`{` + helloAt + `,"mode":null}`),
			`resources[0] (hello).mode: null is not a value here; leave the field out instead`},
		{"null in a later resource", doc(hello, `{"id":"two","type":"directory","path":"/x","owner":null}`),
			`resources[1] (two).owner: null is not a value here; leave the field out instead`},
		{"null resource", doc(hello, `null`), `resources[1]: null is not a value here; leave the field out instead`},
		{"duplicate key", doc(`{` + helloAt + `,"mode":"644","mode":"600"}`), `resources[0] (hello).mode: field given twice`},
		{"duplicate top-level key", `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"resources":[]}`,
			`resources: field given twice`},
		{"duplicate format", `{"format":"zap.declaration/1","format":"zap.declaration/1","target":{"local":true},"resources":[]}`,
			`format: field given twice`},
		{"missing target", `{"format":"zap.declaration/1","resources":[]}`, `target: required field missing`},
		{"missing resources", `{"format":"zap.declaration/1","target":{"local":true}}`, `resources: required field missing`},
		{"missing id", doc(`{"type":"file"}`), `resources[0].id: required field missing`},
		{"missing type", doc(`{"id":"x"}`), `resources[0] (x).type: required field missing`},
		{"missing path", doc(`{"id":"hello","type":"file","content":{"type":"inline","content":""}}`), `resources[0] (hello).path: required field missing`},
		{"missing content", doc(`{"id":"hello","type":"file","path":"/x"}`), `resources[0] (hello).content: required field missing`},
		{"missing inline content", doc(`{"id":"hello","type":"file","path":"/x","content":{"type":"inline"}}`),
			`resources[0] (hello).content.content: required field missing`},
		{"missing link target", doc(`{"id":"l","type":"link","path":"/x"}`), `resources[0] (l).target: required field missing`},
		{"missing script run", doc(`{"id":"s","type":"script","check":"true"}`), `resources[0] (s).run: required field missing`},
		{"data after the document", doc() + ` {}`, `data after the JSON value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Read([]byte(tt.in))
			if err == nil {
				t.Fatalf("Read(%s) = %+v, want %q", tt.in, d, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Read(%s)\n got %q\nwant %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestReadErrorIsPathError(t *testing.T) {
	_, err := Read([]byte(doc(`{` + helloAt + `,"mode":644}`)))
	var pe *canon.PathError
	if !errors.As(err, &pe) || pe.Path != "resources[0] (hello).mode" {
		t.Errorf("Read: %#v, want a *canon.PathError at resources[0] (hello).mode", err)
	}
}

func TestEncodeEmptyResources(t *testing.T) {
	d := &Declaration{Format: Format, Target: Target{Local: true}}
	out, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"format":"zap.declaration/1","resources":[],"target":{"local":true}}`; string(out) != want {
		t.Errorf("Encode = %s, want %s", out, want)
	}
	if _, err := Read(out); err != nil {
		t.Errorf("Read refuses what Encode wrote: %v", err)
	}
}

func TestReadRefusesOtherCase(t *testing.T) {
	for in, want := range map[string]string{
		`{"format":"zap.declaration/1","Target":{"local":true},"target":{"local":true},"resources":[]}`: `Target: unknown field`,
		`{"format":"zap.declaration/1","target":{"Local":true},"resources":[]}`:                         `target.Local: unknown field`,
		doc(`{` + helloAt + `,"Mode":"644"}`):                                                           `resources[0] (hello).Mode: unknown field`,
	} {
		_, err := Read([]byte(in))
		if err == nil || err.Error() != want {
			t.Errorf("Read(%s) = %v, want %q", in, err, want)
		}
	}
}

func TestNullInVars(t *testing.T) {
	for path, want := range map[string]bool{
		"resources[3].content.vars.obj":            true,
		"resources[3].content.vars.obj.a[2]":       true,
		"declaration.resources[0].content.vars.x":  true,
		"changes[1].resource.content.vars.x":       true,
		"resources[3].content.vars":                false,
		"resources[3].content.template":            false,
		"resources[0].env.x":                       false,
		"declaration.resources[0].content.kinds.x": false,
		"changes[1].resource.content.vars":         false,
	} {
		if got := NullInVars(path); got != want {
			t.Errorf("NullInVars(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestReadFormatKinds checks a reader can tell a document of another format
// (another version's, another kind's) from one that names no format, by
// ErrFormat and OtherFormatError rather than by message.
func TestReadFormatKinds(t *testing.T) {
	for _, c := range []struct {
		in    string
		other string // the format named, "" when none is
	}{
		{`{"format":"zap.declaration/2","target":{"local":true},"resources":[]}`, "zap.declaration/2"},
		{`{"format":"zap.plan/1"}`, "zap.plan/1"},
		{`{"target":{"local":true},"format":"zap.declaration/1","resources":[]}`, ""},
		{`{"format":null}`, ""},
	} {
		_, err := Read([]byte(c.in))
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", c.in, err)
		}
		var other *OtherFormatError
		if got := errors.As(err, &other); got != (c.other != "") || got && (other.Got != c.other || other.Want != Format) {
			t.Errorf("%s: %#v, want another format %q", c.in, other, c.other)
		}
	}
	if _, err := Read([]byte(`[]`)); errors.Is(err, ErrFormat) {
		t.Errorf("not an object: %v, want no ErrFormat", err)
	}
}
