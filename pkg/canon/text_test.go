package canon

import (
	"strings"
	"testing"
)

// TestCheckText: a string that isn't UTF-8 text is refused naming its
// field, where it was read as U+FFFD and a path reached the target under
// another name; text, escapes and pairs pass.
func TestCheckText(t *testing.T) {
	for _, c := range []struct {
		doc, path, msg string
	}{
		{"{\"resources\":[{\"id\":\"f\",\"path\":\"/tmp/caf\xe9\"}]}", "resources[0].path", "byte 0xE9 is not UTF-8"},
		{"{\"a\":[1,2,{\"b\":\"x\"},\"\xff\"]}", "a[3]", "byte 0xFF is not UTF-8"},
		{`{"a":{"b":"\ud800x"}}`, "a.b", `\ud800 is half of a surrogate pair`},
		{`{"a":"\udc00"}`, "a", `\udc00 is half`},
		{`{"a":"ok","b":["\ud83d"]}`, "b[0]", `\ud83d is half`},
		{"{\"k\xe9y\":1}", "k\uFFFDy", "byte 0xE9"},
		{"\"\xc3\"", "", "byte 0xC3"},
	} {
		err := Check([]byte(c.doc), nil)
		if err == nil {
			t.Errorf("%q passed", c.doc)
			continue
		}
		pe, ok := err.(*PathError)
		if !ok || pe.Path != c.path || !strings.Contains(pe.Msg, c.msg) || !strings.Contains(pe.Msg, "UTF-8 text") {
			t.Errorf("%q: %v (%T), want path %q and %q", c.doc, err, err, c.path, c.msg)
		}
	}
	for _, doc := range []string{
		`{"a":"café","b":"\u00e9","c":"\ud83d\ude00","d":"\\ud800","e":"\\\\"}`,
		`["\\\ud83d\ude00"]`,
		`{}`,
	} {
		if err := Check([]byte(doc), nil); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}
