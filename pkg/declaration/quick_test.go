package declaration

import (
	"encoding/json"
	"testing"
)

// FuzzQuickString: whatever quickString decodes, encoding/json decodes to
// the same string.
func FuzzQuickString(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"file 1\nfile 1\n"`, `"a\"b"`, `"a\\"`, `"a\\\"`, `"\/\b\f\n\r\t"`,
		`"\u0041"`, `"é"`, `"a"b"`, `"a\"`, `"a` + "\t" + `"`, `"<>&"`, `x`, `"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := quickString(data)
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("quickString(%q) = %q, but encoding/json refuses it: %v", data, got, err)
		}
		if got != want {
			t.Fatalf("quickString(%q) = %q, encoding/json %q", data, got, want)
		}
	})
}

// TestQuickStringDecides: the strings quickString takes and leaves.
func TestQuickStringDecides(t *testing.T) {
	for in, want := range map[string]bool{`""`: true, `"file 1\nfile 1\n"`: true, `"a\"b"`: true, `"a\\"`: true,
		`"\u0041"`: false, `"é"`: false, `"a"b"`: false, `"a\"`: false, "\"a\tb\"": false, ` "a"`: false} {
		if _, ok := quickString([]byte(in)); ok != want {
			t.Errorf("quickString(%s): ok %v, want %v", in, ok, want)
		}
	}
}
