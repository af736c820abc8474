package strict_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
)

func TestNameByID(t *testing.T) {
	data := []byte(`{"resources":[{"id":"a"},{"id":7},"x"],"declaration":{"resources":[{"id":"b"}]}}`)
	tests := []struct {
		path, want string
	}{
		{"resources[0].mode", "resources[0] (a).mode: m"},
		{"resources[0]", "resources[0] (a): m"},
		{"resources[1].mode", "resources[1].mode: m"},
		{"resources[2]", "resources[2]: m"},
		{"resources[9].x", "resources[9].x: m"},
		{"declaration.resources[0].x", "declaration.resources[0] (b).x: m"},
		{"target.host", "target.host: m"},
	}
	for _, tt := range tests {
		err := strict.NameByID(&canon.PathError{Path: tt.path, Msg: "m"}, data, "resources", "declaration.resources")
		if err.Error() != tt.want {
			t.Errorf("strict.NameByID(%s) = %q, want %q", tt.path, err, tt.want)
		}
	}
	plain := errors.New("plain")
	if err := strict.NameByID(plain, data, "resources"); err != plain {
		t.Errorf("NameByID changed an error without a path: %v", err)
	}
}

func TestFieldsList(t *testing.T) {
	f := strict.NewFields("outer", []byte(`{"items":[{"n":1},{"n":"x"}]}`))
	var got []int
	f.List("items", true, func(path string, raw json.RawMessage) error {
		g := strict.NewFields(path, raw)
		var n int
		g.Req("n", &n)
		got = append(got, n)
		return g.Done()
	})
	err := f.Done()
	if err == nil || err.Error() != "outer.items[1].n: want int, not a JSON string" {
		t.Errorf("List: %v", err)
	}
	f = strict.NewFields("", []byte(`{}`))
	f.List("items", true, func(string, json.RawMessage) error { return nil })
	if err := f.Done(); err == nil || err.Error() != "items: required field missing" {
		t.Errorf("List of a missing required list: %v", err)
	}
	f = strict.NewFields("", []byte(`{"items":[1]}`))
	f.List("items", false, func(string, json.RawMessage) error { return errors.New("no") })
	if err := f.Done(); err == nil || err.Error() != "items[0]: no" {
		t.Errorf("List naming an element's plain error: %v", err)
	}
}

func TestDecodeExactKeys(t *testing.T) {
	type inner struct {
		Name string `json:"name"`
	}
	type embedded struct {
		Deep int `json:"deep"`
	}
	type outer struct {
		embedded
		List  []inner          `json:"list"`
		Map   map[string]inner `json:"map"`
		Text  declaration.Text `json:"text"`
		Plain int
		Skip  int `json:"-"`
	}
	ok := []string{
		`{"deep":1,"list":[{"name":"a"}],"map":{"ANY":{"name":"b"}},"text":{"$env":"A"},"Plain":2}`,
		`{}`,
	}
	for _, in := range ok {
		var v outer
		if err := strict.Decode([]byte(in), &v); err != nil {
			t.Errorf("Decode(%s): %v", in, err)
		}
	}
	bad := []struct{ in, want string }{
		{`{"Deep":1}`, `Deep: unknown field`},
		{`{"list":[{"name":"a"},{"Name":"b"}]}`, `list[1].Name: unknown field`},
		{`{"map":{"k":{"NAME":"b"}}}`, `map.k.NAME: unknown field`},
		{`{"plain":2}`, `plain: unknown field`},
		{`{"Skip":2}`, `Skip: unknown field`},
		{`{"list":[{"name":"a","extra":1}]}`, `list[0].extra: unknown field`},
		{`{"text":{"$ENV":"A"}}`, `text: a reference object has exactly one key, $env or $text`},
	}
	for _, tt := range bad {
		var v outer
		err := strict.Decode([]byte(tt.in), &v)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Decode(%s) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// tagged is a type decoded by its tags: every way Tagged reads a field.
type tagged struct {
	Name  string                      `json:"name"`
	Count *int                        `json:"count,omitempty"`
	Items []declaration.Text          `json:"items"`
	Env   map[string]declaration.Text `json:"env,omitempty"`
	More  []string                    `json:"more,omitempty"`
	Skip  int                         `json:"-"`
	Plain int
}

func TestTagged(t *testing.T) {
	var v tagged
	err := strict.DecodeTagged("x", []byte(`{"name":"n","count":3,"items":["a",{"$env":"B"}],"env":{"K":"v"},"more":["m"]}`), &v)
	if err != nil {
		t.Fatalf("DecodeTagged: %v", err)
	}
	if v.Name != "n" || v.Count == nil || *v.Count != 3 || len(v.Items) != 2 || v.Items[1].String() != "{env:B}" ||
		v.Env["K"].String() != "v" || len(v.More) != 1 {
		t.Errorf("DecodeTagged decoded %+v", v)
	}
	v = tagged{}
	if err := strict.DecodeTagged("", []byte(`{"name":"n","items":[]}`), &v); err != nil || v.Count != nil || v.Items == nil || v.Env != nil {
		t.Errorf("DecodeTagged of the required fields only: %v, %+v (want no count, items empty but not nil)", err, v)
	}
	bad := []struct{ in, want string }{
		{`{"items":[]}`, `x.name: required field missing`},
		{`{"name":"n"}`, `x.items: required field missing`},
		// The fields are read, and fail, in the struct's order.
		{`{"name":1,"items":7}`, `x.name: want string, not a JSON number`},
		{`{"name":"n","count":"3","items":7}`, `x.count: want int, not a JSON string`},
		{`{"name":"n","items":["a",{"$env":"b c"}]}`, `x.items[1]: `},
		{`{"name":"n","items":[],"env":{"K":1}}`, `x.env.K: `},
		{`{"name":"n","items":[],"Plain":1}`, `x.Plain: unknown field`},
		{`{"name":"n","items":[],"Skip":1}`, `x.Skip: unknown field`},
	}
	for _, tt := range bad {
		var v tagged
		err := strict.DecodeTagged("x", []byte(tt.in), &v)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("DecodeTagged(%s) = %v, want %q...", tt.in, err, tt.want)
		}
	}
}

// TestFieldsDoneEnds checks Done ends an object's reading: a second Done
// says what the first did, and the member list it gives back for the next
// object's (memberLists) reads as that object's only.
func TestFieldsDoneEnds(t *testing.T) {
	f := strict.NewFields("x", []byte(`{"a":1,"zz":2}`))
	var a int
	f.Req("a", &a)
	for range 2 {
		if err := f.Done(); err == nil || err.Error() != "x.zz: unknown field" {
			t.Errorf("Done: %v, want x.zz: unknown field", err)
		}
	}
	if f.Has("a") {
		t.Error("a Fields done still has its members")
	}
	for i := range 100 {
		g := strict.NewFields("", []byte(`{"b":2}`))
		if g.Has("a") || g.Has("zz") || !g.Has("b") {
			t.Fatalf("object %d: an object read after another has the other's keys", i)
		}
		var b int
		g.Req("b", &b)
		if err := g.Done(); err != nil || b != 2 {
			t.Fatalf("object %d: %v, b=%d", i, err, b)
		}
	}
}
