package canon

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// fastSeeds are documents for the fast paths: canonSeeds, and ones only the
// decoder can answer.
var fastSeeds = []string{
	`"\u0041\/\u00e9"`, `"\ud800"`, `"\ud83d\ude00"`, "\"\u2028\u2029\"", `"\u0000\u0001\u001f\u007f"`, `"\n\r\t\b\f\u005c\u0022"`, `{"\u0066ormat":1,"a":2}`,
	`{"a":1,"a":2}`, `{"\u0061":1,"a":2}`, `{"a":null}`, `[null]`, `{"x":{"y":[1,null]}}`,
	`{"b":1,"format":"f","a":{"z":"\u003c","y":"\n"}}`, `01`, `-`, `1.`, `1e`, `"\x"`, `"\u12"`,
	`{"a" 1}`, `{,}`, `[1,]`, `{"a":1,}`, "\"a\x01\"", "\"\xff\"", "{\"\xff\":1,\"\xfe\":2}",
	strings.Repeat("[", 1100) + strings.Repeat("]", 1100), `tru`, `nul`, `[true false]`,
	`{"k1":1,"k2":1,"k3":1,"k4":1,"k5":1,"k6":1,"k7":1,"k8":1,"k9":1,"k10":1,"k11":1,"k12":1,"k13":1,"k14":1,"k15":1,"k16":1,"k17":1,"k1":2}`,
	`{"k1":1,"k2":1,"k3":1,"k4":1,"k5":1,"k6":1,"k7":1,"k8":1,"k9":1,"k10":1,"k11":1,"k12":1,"k13":1,"k14":1,"k15":1,"k16":1,"k17":1,"k\u0031":2}`,
}

// allowSome allows null at paths ending in "ok" and at the second element of
// a top-level list.
func allowSome(p string) bool { return strings.HasSuffix(p, "ok") || p == "[1]" }

// FuzzFastPaths checks the fast paths answer only what the decoder-based
// readings would: Transform's bytes, and Check's nil.
func FuzzFastPaths(f *testing.F) {
	for _, s := range append(append([]string{}, canonSeeds...), fastSeeds...) {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"ok":null,"x":{"ok":null}}`))
	f.Add([]byte(`[1,null]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		if out, ok := transformFast(in); ok {
			want, err := transformSlow(in)
			if err != nil {
				t.Fatalf("fast Transform took %q, the decoder refuses it: %v", in, err)
			}
			if !bytes.Equal(out, want) {
				t.Fatalf("Transform(%q):\n fast %q\n slow %q", in, out, want)
			}
		}
		for _, allow := range []func(string) bool{nil, allowSome} {
			ok, limit := checkFast(in, allow)
			if ok {
				if err := checkSlow(in, allow); err != nil {
					t.Fatalf("fast Check passed %q, the decoder refuses it: %v", in, err)
				}
			}
			if limit != nil {
				if err := Bounds(in); !reflect.DeepEqual(err, limit) {
					t.Fatalf("fast Check stopped %q at %v, Bounds at %v", in, limit, err)
				}
			}
		}
	})
}

// TestFastPathsAnswer checks the fast paths answer a document Zap writes,
// with escapes, unsorted keys and nulls where allowed, rather than sending
// it to the decoder.
func TestFastPathsAnswer(t *testing.T) {
	doc := []byte(`{"z":[1,-2,{"b":"\u003ca\u0026\n","a":true}],"format":"x/1","m":{"ok":null},"é":"\u00e9"}`)
	out, ok := transformFast(doc)
	if !ok {
		t.Fatal("the fast path sent the document to the decoder")
	}
	want, err := transformSlow(doc)
	if err != nil || !bytes.Equal(out, want) {
		t.Fatalf("fast %s, slow %s (%v)", out, want, err)
	}
	if ok, _ := checkFast(doc, allowSome); !ok {
		t.Fatal("the fast check sent the document to the decoder")
	}
	for _, bad := range []string{`{"m":{"x":null}}`, `{"a":1,"\u0061":2}`} {
		if ok, _ := checkFast([]byte(bad), allowSome); ok {
			t.Errorf("the fast check passed %s", bad)
		}
		if Check([]byte(bad), allowSome) == nil {
			t.Errorf("Check passed %s", bad)
		}
	}
}

// docOf is a declaration-like document of n file resources, each with
// 40 lines of inline content: the shape of testdata/bench's config.
func docOf(n int) []byte {
	var s strings.Builder
	s.WriteString(`{"format":"zap.declaration/1","resources":[`)
	for i := range n {
		if i > 0 {
			s.WriteString(",")
		}
		s.WriteString(`{"kind":"file","id":"f` + itoa(i) + `","path":"/tmp/bench/f` + itoa(i) + `.txt","mode":"644","content":{"type":"inline","content":"` + strings.Repeat(`file `+itoa(i)+`\n`, 40) + `"},"depends_on":["bench"]}`)
	}
	s.WriteString(`],"target":{"host":"h"}}`)
	return []byte(s.String())
}

// benchSizes are the numbers of resources the fast paths are measured at.
var benchSizes = []int{200, 2000, 20000}

// BenchmarkCheck compares Check's fast path with the decoder's reading
// (checkSlow), which decides every document the fast path doesn't.
func BenchmarkCheck(b *testing.B) {
	for _, n := range benchSizes {
		doc := docOf(n)
		for _, way := range []struct {
			name  string
			check func([]byte, func(string) bool) error
		}{{"fast", Check}, {"slow", checkSlow}} {
			b.Run(itoa(n)+"/"+way.name, func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				for b.Loop() {
					if err := way.check(doc, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkTransform compares Transform's fast path with the decoder's
// (transformSlow).
func BenchmarkTransform(b *testing.B) {
	for _, n := range benchSizes {
		doc := docOf(n)
		for _, way := range []struct {
			name      string
			transform func([]byte) ([]byte, error)
		}{{"fast", Transform}, {"slow", transformSlow}} {
			b.Run(itoa(n)+"/"+way.name, func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := way.transform(doc); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// FuzzSplit checks Members and Elements split only what encoding/json
// accepts, into what it makes of it.
func FuzzSplit(f *testing.F) {
	for _, s := range append(append([]string{}, canonSeeds...), fastSeeds...) {
		f.Add([]byte(s))
	}
	f.Add([]byte(` {"a" : [1, null, {"b":"\u00e9"}] , "c":{}} `))
	f.Add([]byte(`[ {"a":1} , "x", null, [] ]`))
	f.Add([]byte(`{"a":"x\\\"y\\","b":["\\\\",{"c\"":"\"\n"}],"d":"\u005c"}`))
	f.Add([]byte(`["` + strings.Repeat(`file 1\n`, 40) + `",{"k":"\\"}]`))
	f.Add([]byte(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"q":19}`))
	f.Add([]byte(`{"a":1,"b":{"a":2},"\u0061":3}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		// An object that gives a key twice is never split.
		for _, split := range []func([]byte, []Member) ([]Member, bool){MemberList, MemberListValid} {
			if !json.Valid(in) {
				break
			}
			if list, ok := split(in, nil); ok {
				seen := map[string]bool{}
				for _, m := range list {
					if seen[string(m.Key)] {
						t.Fatalf("split %q giving the key %q twice", in, m.Key)
					}
					seen[string(m.Key)] = true
				}
			}
		}
		if m, ok := Members(in); ok {
			var want map[string]json.RawMessage
			if err := json.Unmarshal(in, &want); err != nil {
				t.Fatalf("Members split %q, which Unmarshal refuses: %v", in, err)
			}
			if !reflect.DeepEqual(m, want) && !(len(m) == 0 && len(want) == 0) {
				t.Fatalf("Members(%q) = %q, Unmarshal %q", in, m, want)
			}
		}
		// The well-formed readings split what encoding/json accepts
		// exactly as the checking ones do.
		if json.Valid(in) {
			list, ok := MemberList(in, nil)
			listValid, okValid := MemberListValid(in, nil)
			if ok != okValid || !reflect.DeepEqual(list, listValid) {
				t.Fatalf("MemberList(%q) = %q %v, MemberListValid %q %v", in, list, ok, listValid, okValid)
			}
			l, ok := Elements(in)
			lValid, okValid := ElementsValid(in)
			if ok != okValid || !reflect.DeepEqual(l, lValid) {
				t.Fatalf("Elements(%q) = %q %v, ElementsValid %q %v", in, l, ok, lValid, okValid)
			}
		}
		if l, ok := Elements(in); ok {
			var want []json.RawMessage
			if err := json.Unmarshal(in, &want); err != nil {
				t.Fatalf("Elements split %q, which Unmarshal refuses: %v", in, err)
			}
			if !reflect.DeepEqual(l, want) && !(len(l) == 0 && len(want) == 0 && want != nil) {
				t.Fatalf("Elements(%q) = %q, Unmarshal %q", in, l, want)
			}
		}
	})
}

type selfWriter struct{ raw string }

func (s selfWriter) MarshalJSON() ([]byte, error) { return []byte(s.raw), nil }

// TestMarshalSelfWriter checks Marshal asks a value that writes itself
// directly and answers as encoding/json's path would: the same bytes, and
// for what it wrote wrong, encoding/json's error.
func TestMarshalSelfWriter(t *testing.T) {
	got, err := Marshal(selfWriter{` {"b": "<\u0041>", "format":"f/1", "a": [1, 2]} `})
	if err != nil || string(got) != `{"format":"f/1","a":[1,2],"b":"<A>"}` {
		t.Errorf("Marshal = %s, %v", got, err)
	}
	if _, err := Marshal(selfWriter{`{"a":`}); err == nil || !strings.Contains(err.Error(), "MarshalJSON") {
		t.Errorf("a writer that writes invalid JSON: %v, want encoding/json's error", err)
	}
	var nilPtr *selfWriter
	if got, err := Marshal(nilPtr); err != nil || string(got) != "null" {
		t.Errorf("a nil pointer: %s, %v", got, err)
	}
}
