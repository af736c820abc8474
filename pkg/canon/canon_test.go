package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestTransform(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"sorted keys", `{"b":1,"a":2,"c":3}`, `{"a":2,"b":1,"c":3}`},
		{"format first", `{"a":1,"format":"x/1","Z":2}`, `{"format":"x/1","Z":2,"a":1}`},
		{"format first when nested", `{"x":{"z":1,"format":"f","a":2}}`, `{"x":{"format":"f","a":2,"z":1}}`},
		{"keys sort bytewise", `{"é":1,"z":2,"Z":3,"_":4,"$env":5}`, `{"$env":5,"Z":3,"_":4,"z":2,"é":1}`},
		{"whitespace dropped", " {\n\t\"a\" : [ 1 , 2 ] ,\r\n \"b\" : { } }\n", `{"a":[1,2],"b":{}}`},
		{"arrays keep order", `[3,1,2]`, `[3,1,2]`},
		{"scalars", `[true,false,null,"s",0,-7]`, `[true,false,null,"s",0,-7]`},
		{"minus zero", `-0`, `0`},
		{"largest int64", `9223372036854775807`, `9223372036854775807`},
		{"smallest int64", `-9223372036854775808`, `-9223372036854775808`},
		{"html not escaped", `"<a&b>"`, `"<a&b>"`},
		{"unneeded escapes undone", `"\u0041\/\u00e9"`, `"A/é"`},
		{"quote and backslash", `"\"\\"`, `"\"\\"`},
		{"short escapes", `"\n\r\t\b\f"`, `"\n\r\t\b\f"`},
		{"other control characters", `"\u0000\u0001\u001f"`, `"\u0000\u0001\u001f"`},
		{"line separators", "\"\u2028\u2029\"", `"\u2028\u2029"`},
		{"DEL and non-ASCII kept raw", `"\u007f\u00ad\u200b"`, "\"\u007f\u00ad\u200b\""},
		{"lone surrogate", `"\ud800"`, "\"\ufffd\""},
		{"surrogate pair", `"\ud83d\ude00"`, "\"\U0001F600\""},
		{"invalid UTF-8", "\"a\xffb\"", "\"a\ufffdb\""},
		{"escaped key", `{"\u0066ormat":1,"a":2}`, `{"format":1,"a":2}`},
		{"duplicate keys keep the last", `{"a":1,"a":2}`, `{"a":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Transform([]byte(tt.in))
			if err != nil {
				t.Fatalf("Transform(%q): %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Errorf("Transform(%q)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			again, err := Transform(got)
			if err != nil || !bytes.Equal(again, got) {
				t.Errorf("Transform is not idempotent on %s: %s, %v", got, again, err)
			}
		})
	}
}

func TestTransformRefuses(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"fraction", `1.5`, "not an integer"},
		{"integral fraction", `{"a":1.0}`, "not an integer"},
		{"exponent", `[1e3]`, "not an integer"},
		{"too large", `9223372036854775808`, "not an integer"},
		{"too small", `-9223372036854775809`, "not an integer"},
		{"empty", ``, "EOF"},
		{"two values", `{} {}`, "data after the JSON value"},
		{"trailing garbage", `1 x`, "data after the JSON value"},
		{"not JSON", `{a:1}`, "invalid character"},
		{"truncated", `{"a":`, "EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Transform([]byte(tt.in))
			if err == nil {
				t.Fatalf("Transform(%q) = %s, want an error", tt.in, got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Transform(%q): %v, want it to say %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestMarshal(t *testing.T) {
	v := struct {
		Z       string         `json:"z"`
		Format  string         `json:"format"`
		A       []int          `json:"a"`
		M       map[string]int `json:"m"`
		Omitted string         `json:"omitted,omitempty"`
	}{Z: "<&>", Format: "t/1", A: []int{2, 1}, M: map[string]int{"y": 1, "x": 2}}
	got, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":"t/1","a":[2,1],"m":{"x":2,"y":1},"z":"<&>"}`
	if string(got) != want {
		t.Errorf("Marshal\n got %s\nwant %s", got, want)
	}
	if _, err := Marshal(1.5); err == nil {
		t.Error("Marshal(1.5) succeeded, want a refusal of the fraction")
	}
	if _, err := Marshal(make(chan int)); err == nil {
		t.Error("Marshal(chan) succeeded")
	}
}

func TestCheck(t *testing.T) {
	allowAt := func(paths ...string) func(string) bool {
		return func(p string) bool {
			for _, q := range paths {
				if p == q {
					return true
				}
			}
			return false
		}
	}
	tests := []struct {
		name      string
		in        string
		allowNull func(string) bool
		wantPath  string // "" with wantErr: an error with no path
		wantErr   string // "" means no error
	}{
		{"plain object", `{"a":[1,{"b":"c"}],"d":true}`, nil, "", ""},
		{"null at the top", `null`, nil, "", "null is not a value"},
		{"null in an object", `{"a":{"b":null}}`, nil, "a.b", "null is not a value"},
		{"null in a list", `{"a":[1,null]}`, nil, "a[1]", "null is not a value"},
		{"null in a top-level list", `[null]`, nil, "[0]", "null is not a value"},
		{"null in a list of objects", `{"r":[{},{"x":[{"y":null}]}]}`, nil, "r[1].x[0].y", "null is not a value"},
		{"null allowed where asked", `{"a":{"b":null},"c":[null]}`, allowAt("a.b", "c[0]"), "", ""},
		{"null refused elsewhere", `{"a":{"b":null},"c":null}`, allowAt("a.b"), "c", "null is not a value"},
		{"duplicate key", `{"a":1,"b":2,"a":3}`, nil, "a", "field given twice"},
		{"duplicate nested key", `{"a":[{"x":1,"x":1}]}`, nil, "a[0].x", "field given twice"},
		{"duplicate spelled with an escape", `{"a":1,"\u0061":2}`, nil, "a", "field given twice"},
		{"same key in sibling objects", `{"a":{"x":1},"b":{"x":1}}`, nil, "", ""},
		{"trailing value", `{} []`, nil, "", "data after the JSON value"},
		{"syntax error", `{"a":[1,}`, nil, "a[1]", "invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.in), tt.allowNull)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Check(%s): %v", tt.in, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Check(%s) succeeded, want %q", tt.in, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Check(%s): %v, want it to say %q", tt.in, err, tt.wantErr)
			}
			var pe *PathError
			if tt.wantPath != "" {
				if !errors.As(err, &pe) || pe.Path != tt.wantPath {
					t.Errorf("Check(%s): %#v, want the path %q", tt.in, err, tt.wantPath)
				}
				if !strings.HasPrefix(err.Error(), tt.wantPath+": ") {
					t.Errorf("Check(%s): %q doesn't start with its path", tt.in, err)
				}
			}
		})
	}
}

func TestPathError(t *testing.T) {
	if got := (&PathError{Msg: "m"}).Error(); got != "m" {
		t.Errorf("no path: %q", got)
	}
	if got := (&PathError{Path: "a[0].b", Msg: "m"}).Error(); got != "a[0].b: m" {
		t.Errorf("with path: %q", got)
	}
}

// canonSeeds are inputs the fuzzers start from: every shape Transform meets.
var canonSeeds = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `null`, `true`,
	`{"format":"zap.plan/1","b":[1,2,{"c":null}],"a":"x"}`,
	`{"z":{"format":1,"y":2},"format":{"a":[]}}`,
	`{"a":"\u0000\n\u2028<>&\"\\\/é\ud83d\ude00\ud800"}`,
	"{\"a\":\"\xff\xfe\"}",
	`[1.5]`, `[1e2]`, `[-9223372036854775808]`, `[9223372036854775808]`,
	` { "b" : 1 , "a" : 2 } `,
	`{"a":1,"a":2}`,
	`{"` + strings.Repeat("k", 40) + `":[[[[[]]]]]}`,
}

// FuzzCanonTransform checks that Transform is idempotent, and that its output
// is valid JSON that decodes to the value its input decodes to.
func FuzzCanonTransform(f *testing.F) {
	for _, s := range canonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Transform(in)
		if err != nil {
			return
		}
		again, err := Transform(out)
		if err != nil {
			t.Fatalf("Transform refuses its own output %q: %v", out, err)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("Transform is not idempotent:\n once %q\ntwice %q", out, again)
		}
		if !json.Valid(out) {
			t.Fatalf("Transform wrote invalid JSON %q", out)
		}
		if !insideStrings(out) {
			t.Fatalf("Transform left whitespace outside strings: %q", out)
		}
		var before, after any
		if err := decode(in, &before); err != nil {
			t.Fatalf("input Transform accepted doesn't decode: %v", err)
		}
		if err := decode(out, &after); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normalize(before), normalize(after)) {
			t.Fatalf("Transform changed the value:\n in %q\nout %q", in, out)
		}
	})
}

func decode(data []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// normalize rewrites numbers as int64s so that -0 and 0 compare equal.
func normalize(v any) any {
	switch v := v.(type) {
	case json.Number:
		i, err := v.Int64()
		if err != nil {
			return v
		}
		return i
	case []any:
		for i := range v {
			v[i] = normalize(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = normalize(v[k])
		}
	}
	return v
}

// insideStrings reports whether every whitespace byte of compact JSON sits
// inside a string.
func insideStrings(b []byte) bool {
	in, esc := false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			return false
		}
	}
	return true
}
