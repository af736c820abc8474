package declaration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/canon"
)

// reflected is a Declaration written as encoding/json writes it, by
// reflection: what Declaration.MarshalJSON wrote before it wrote canonical
// bytes itself, and what canon.Marshal made of it the reference the direct
// encoding is held to.
type reflected Declaration

func (d reflected) MarshalJSON() ([]byte, error) {
	type plain Declaration
	p := plain(d)
	if p.Resources == nil {
		p.Resources = []Resource{}
	}
	return json.Marshal(p)
}

// sameAsMarshal fails unless d.Encode and d.MarshalJSON write exactly what
// canon.Marshal writes of d spelled by reflection, or fail as it fails.
func sameAsMarshal(t *testing.T, d *Declaration) {
	t.Helper()
	got, err := d.Encode()
	want, wantErr := canon.Marshal(reflected(*d))
	if direct, err := d.MarshalJSON(); wantErr == nil && (err != nil || !bytes.Equal(direct, want)) {
		t.Fatalf("MarshalJSON differs from canon.Marshal:\n got %q (%v)\nwant %q", direct, err, want)
	}
	// The reference's error names its own type where Encode's names
	// *Declaration.
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != strings.Replace(wantErr.Error(), "declaration.reflected", "*declaration.Declaration", 1) {
		t.Fatalf("Encode: %v, canon.Marshal: %v", err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode differs from canon.Marshal:\n got %q\nwant %q", got, want)
	}
}

// TestEncodeMatchesMarshalSeeds checks the direct encoding against
// canon.Marshal for every declaration the fuzz seeds and the benchmark read.
func TestEncodeMatchesMarshalSeeds(t *testing.T) {
	_, big := largeDeclaration(t)
	for i, s := range append(append([]string{string(big)}, canonicalSeeds...), otherSeeds...) {
		d, err := Read([]byte(s))
		if err != nil {
			continue
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { sameAsMarshal(t, d) })
	}
}

// oddStrings are strings whose escaping is easy to get wrong.
var oddStrings = []string{
	"", "plain", "<&>", "a\"b\\c", "\u2028\u2029", "\x00\x01\x1f\x7f", "\b\f\n\r\t", "\xff", "a\xe2\x80", "\xed\xa0\x80",
	"\uFFFD", "é ü 日本", "format", "$env", "\ufdd0",
}

// TestEncodeMatchesMarshalResources checks the direct encoding against
// canon.Marshal for resources of every kind the encoder spells itself, with
// every optional field set and left out, strings needing every escape, and
// the values it hands to canon.Marshal (other kinds, other content sources,
// missing kind fields, an unknown type).
func TestEncodeMatchesMarshalResources(t *testing.T) {
	for i, s := range oddStrings {
		s2 := oddStrings[(i+1)%len(oddStrings)]
		content := s + "\n" + s2
		text := Concat(Part{Lit: s}, Part{Env: "A"}, Part{Lit: s2})
		d := &Declaration{
			Format: s,
			Target: Target{Local: i%2 == 0, Host: &text, User: &Text{}, Port: i - 3, Identity: s, Home: s2,
				BootstrapUser: ptr(Ref("B")), PackageManager: s, ServiceManager: s2},
			Mask: []string{s, s2}, Unmask: []string{s2},
			Resources: []Resource{
				{Common: Common{ID: s, Type: KindFile, Name: s2, DependsOn: []string{s, s2}},
					Body: &File{Path: text, Content: Content{Type: ContentInline, Inline: &content}, Mode: s, Owner: s2, Group: s,
						Triggers: []string{s2}, Validate: ptr(Lit(s))}},
				{Common: Common{ID: s2, Type: KindFile}, Body: &File{Content: Content{Type: ContentType(s)}}},
				{Common: Common{ID: s, Type: KindFile}, Body: &File{Path: Lit(s), Content: Content{Type: ContentInline, Inline: ptr("")}, Validate: &Text{}}},
				{Common: Common{ID: s, Type: KindFile}, Body: &File{Content: Content{Type: ContentTemplate, Template: &s,
					Vars: map[string]Var{s: {Text: &text}, "n": {}}, Kinds: map[string]string{s: "word"}}}},
				{Common: Common{ID: s, Type: KindFile}, Body: &File{Content: Content{Type: ContentRemote, URL: &text, Blake3: s,
					Extract: &Extract{Type: ExtractTarGZ}, Auth: ptr(Ref("T"))}}},
				{Common: Common{ID: s, Type: KindFile}, Body: &File{Content: Content{Type: ContentSource, Path: &text}}},
				{Common: Common{ID: s, Type: KindFile}, Body: &File{Content: Content{Type: ContentInline, Inline: &content, File: s2}}},
				{Common: Common{ID: s, Type: KindFile}, Body: &File{Content: Content{Type: ContentBytes, Base64: &s, File: s2}}},
				{Common: Common{ID: s, Type: KindDirectory, DependsOn: []string{s}}, Body: &Directory{Path: text, Mode: s, Owner: s, Group: s2}},
				{Common: Common{ID: s, Type: KindDirectory, Name: s}, Body: &Directory{Group: s2}},
				{Common: Common{ID: s, Type: KindDirectory}, Body: &Directory{Path: Lit(s)}},
				{Common: Common{ID: s2, Type: KindLink, Name: s, DependsOn: []string{s2}}, Body: &Link{Path: text, Target: Ref("R")}},
				{Common: Common{ID: s2, Type: KindLink}, Body: &Link{}},
				{Common: Common{ID: s, Type: KindScript, Name: s2, DependsOn: []string{s}}, Body: &Script{Check: text, Run: Lit(s), Cwd: s2,
					Env: map[string]Text{s: text, s2: Lit(s), "format": Ref("F"), "Z": {}, "\xfe": Lit("x")}}},
				{Common: Common{ID: s, Type: KindScript}, Body: &Script{Env: map[string]Text{}}},
				{Common: Common{ID: s, Type: KindScript}, Body: &Script{Env: map[string]Text{s: Lit(s2)}}},
				{Common: Common{ID: s, Type: KindSwap}, Body: &Swap{Size: s}},
				{Common: Common{ID: s, Type: KindFile}},
				{Common: Common{ID: s, Type: KindLink}},
				{Common: Common{ID: s, Type: KindDirectory}},
				{Common: Common{ID: s, Type: KindScript}},
			},
			Deploy: &Deploy{Path: s, Artifacts: []string{s2}},
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { sameAsMarshal(t, d) })
		// Each resource alone, so a difference in one is named.
		for j, r := range d.Resources {
			t.Run(fmt.Sprintf("%d/%d", i, j), func(t *testing.T) {
				sameAsMarshal(t, &Declaration{Format: Format, Resources: []Resource{r}})
			})
		}
	}
	sameAsMarshal(t, &Declaration{})
	sameAsMarshal(t, &Declaration{Format: Format, Resources: []Resource{{Common: Common{ID: "x", Type: "nope"}}}})
	// Text parts as Concat would never make them.
	sameAsMarshal(t, &Declaration{Target: Target{Host: &Text{parts: []Part{{Lit: ""}}}, User: &Text{parts: []Part{{Lit: "a"}, {Lit: ""}, {Env: "E"}}}}})
}

func ptr[T any](v T) *T { return &v }

// FuzzEncodeMatchesMarshal checks the direct encoding against canon.Marshal
// for any declaration Read accepts, and for resources of the kinds it
// spells itself built from any strings (Read never yields invalid UTF-8).
func FuzzEncodeMatchesMarshal(f *testing.F) {
	for _, s := range append(append([]string{}, canonicalSeeds...), otherSeeds...) {
		f.Add([]byte(s), "", "", "", uint8(0))
	}
	for i, s := range oddStrings {
		f.Add([]byte(nil), s, oddStrings[(i+3)%len(oddStrings)], "x\n"+s, uint8(i))
	}
	f.Fuzz(func(t *testing.T, in []byte, a, b, c string, sel uint8) {
		if d, err := Read(in); err == nil {
			sameAsMarshal(t, d)
		}
		text := Lit(a)
		if sel&1 != 0 {
			text = Concat(Part{Lit: a}, Part{Env: b}, Part{Lit: c})
		}
		var deps []string
		if sel&2 != 0 {
			deps = []string{a, c}
		}
		common := Common{ID: a, Type: KindFile, Name: b, DependsOn: deps}
		var r Resource
		switch sel >> 2 % 4 {
		case 0:
			r = Resource{Common: common, Body: &File{Path: text, Content: Content{Type: ContentType(b), Inline: &c}, Mode: b, Owner: c, Group: a, Triggers: deps}}
		case 1:
			common.Type = KindDirectory
			r = Resource{Common: common, Body: &Directory{Path: text, Mode: a, Owner: b, Group: c}}
		case 2:
			common.Type = KindLink
			r = Resource{Common: common, Body: &Link{Path: text, Target: Lit(c)}}
		case 3:
			common.Type = KindScript
			r = Resource{Common: common, Body: &Script{Check: text, Run: Lit(b), Cwd: c, Env: map[string]Text{a: text, b: Lit(c), c: Ref(a)}}}
		}
		sameAsMarshal(t, &Declaration{Format: a, Target: Target{Home: b, Host: &text}, Resources: []Resource{r}, Mask: deps})
	})
}

// FuzzWellFormedDecode checks that decoding a declaration known to be
// well-formed (the way Read decodes, its values' strings not read again)
// gives what the checking decode gives: the same value or the same error.
func FuzzWellFormedDecode(f *testing.F) {
	for _, s := range append(append([]string{}, canonicalSeeds...), otherSeeds...) {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"format":"zap.declaration/1","target":{},"resources":[{"id":"a\"b\\","type":"file","path":"\\\"","content":{"type":"inline","content":"x\\\\\"\n","x\"":1}}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		var checked, wellFormed Declaration
		err1 := checked.DecodeField("", in)
		err2 := wellFormed.DecodeWellFormed("", in)
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("DecodeField: %v, decodeWellFormed: %v", err1, err2)
		}
		if err1 == nil && !reflect.DeepEqual(checked, wellFormed) {
			t.Fatalf("DecodeField %+v, decodeWellFormed %+v", checked, wellFormed)
		}
	})
}
