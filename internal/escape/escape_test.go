package escape

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello, world", "hello, world"},
		{"non-ASCII visible", "café ✓ 日本", "café ✓ 日本"},
		{"empty", "", ""},
		{"newline", "a\nb", "a<U+000A>b"},
		{"carriage return", "a\r\n", "a<U+000D><U+000A>"},
		{"NUL", "a\x00b", "a<U+0000>b"},
		{"escape sequence", "\x1b[31mred", "<U+001B>[31mred"},
		{"DEL", "a\x7f", "a<U+007F>"},
		{"C1 control", "a\u0085b\u009b", "a<U+0085>b<U+009B>"},
		{"tab", "a\tb", "a    b"},
		{"right-to-left override", "good\u202Etxt.exe", "good<U+202E>txt.exe"},
		{"bidi isolates", "\u2066x\u2069", "<U+2066>x<U+2069>"},
		{"zero-width space", "pass\u200Bword", "pass<U+200B>word"},
		{"zero-width joiner", "a\u200Db", "a<U+200D>b"},
		{"byte order mark", "\uFEFFkey", "<U+FEFF>key"},
		{"line separator", "a\u2028b\u2029", "a<U+2028>b<U+2029>"},
		{"soft hyphen", "co\u00ADop", "co<U+00AD>op"},
		{"reference markers", "\uFDD0NAME\uFDD1", "<U+FDD0>NAME<U+FDD1>"},
		{"tag character", "a\U000E0041", "a<U+E0041>"},
		{"private use", "\uE000", "<U+E000>"},
		{"invalid UTF-8", "a\xffb\xc0", "a<U+FFFD>b<U+FFFD>"},
		{"no-break space is visible", "a\u00A0b", "a\u00A0b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line(tt.in); got != tt.want {
				t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestLineLeavesNothingInvisible checks the code points worthTrying picks,
// a batch at a time: Line spells out exactly the invisible ones, turns a tab
// into spaces, and leaves valid UTF-8 with no invisible character.
func TestLineLeavesNothingInvisible(t *testing.T) {
	var in, want strings.Builder
	check := func() {
		out := Line(in.String())
		if !utf8.ValidString(out) {
			t.Fatalf("Line(%q) is not UTF-8", in.String())
		}
		for _, o := range out {
			if o == '\t' || Invisible(o) {
				t.Fatalf("Line keeps U+%04X in %q", o, out)
			}
		}
		if out != want.String() {
			t.Fatalf("Line(%q)\n got %q\nwant %q", in.String(), out, want.String())
		}
		in.Reset()
		want.Reset()
	}
	n := 0
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !worthTrying(r) {
			continue
		}
		in.WriteRune(r)
		switch {
		case r == '\t':
			want.WriteString("    ")
		case Invisible(r):
			fmt.Fprintf(&want, "<U+%04X>", r)
		default:
			want.WriteRune(r)
		}
		if n++; n%256 == 0 {
			check()
		}
	}
	check()
}

// worthTrying keeps the exhaustive tests quick: every code point of the
// Basic Multilingual Plane, and beyond it a sample plus each one next to a
// change of Invisible.
func worthTrying(r rune) bool {
	switch {
	case r >= 0xd800 && r <= 0xdfff:
		return false
	case r <= 0xffff:
		return true
	}
	return r%97 == 0 || Invisible(r) != Invisible(r-1) || Invisible(r) != Invisible(r+1)
}

func TestBlock(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"one line", "echo hi", []string{"echo hi"}},
		{"final newline ends the line", "echo hi\n", []string{"echo hi"}},
		{"lines kept", "a\nb\n\nc", []string{"a", "b", "", "c"}},
		{"a blank last line kept", "a\n\n", []string{"a", ""}},
		{"empty", "", []string{""}},
		{"each line escaped", "a\tb\r\n\x1b\u202E\n", []string{"a    b<U+000D>", "<U+001B><U+202E>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Block(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Block(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestIndent(t *testing.T) {
	got := Indent("set -e\nmake\tall\n", "    ")
	if want := "set -e\n    make    all"; got != want {
		t.Errorf("Indent = %q, want %q", got, want)
	}
	if got := Indent("one", "  "); got != "one" {
		t.Errorf("Indent of one line = %q", got)
	}
}

func TestJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the encoded form after JSON
	}{
		{"plain", "hi", `"hi"`},
		{"controls by encoding/json", "a\nb\x00", `"a\nb\u0000"`},
		{"bidi override", "a\u202Eb", `"a\u202eb"`},
		{"zero-width space", "a\u200Bb", `"a\u200bb"`},
		{"byte order mark", "\uFEFF", `"\ufeff"`},
		{"DEL and C1", "\x7f\u0085", `"\u007f\u0085"`},
		{"soft hyphen", "\u00AD", `"\u00ad"`},
		{"tag character as a surrogate pair", "\U000E0041", `"\udb40\udc41"`},
		{"private use outside the BMP", "\U000F0000", `"\udb80\udc00"`},
		{"visible non-ASCII kept", "é✓😀", `"é✓😀"`},
		{"replacement character kept", "\uFFFD", "\"\uFFFD\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got := JSON(enc)
			if string(got) != tt.want {
				t.Errorf("JSON(%s) = %s, want %s", enc, got, tt.want)
			}
			var back string
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("JSON's output %s doesn't decode: %v", got, err)
			}
			if back != tt.in {
				t.Errorf("JSON's output decodes to %q, not %q", back, tt.in)
			}
		})
	}
}

// TestJSONEveryRune escapes the code points worthTrying picks, a batch at a
// time inside a small document, and checks the result decodes back to the
// same document and holds no invisible character.
func TestJSONEveryRune(t *testing.T) {
	type doc struct {
		Key string            `json:"key"`
		M   map[string]string `json:"m"`
	}
	var batch []rune
	check := func() {
		s := "<" + string(batch) + ">"
		batch = batch[:0]
		in := doc{Key: s, M: map[string]string{s: s}}
		enc, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		out := JSON(enc)
		for _, o := range string(out) {
			if Invisible(o) && o != utf8.RuneError {
				t.Fatalf("JSON keeps U+%04X in %s", o, out)
			}
		}
		var back doc
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("JSON(%s) = %s doesn't decode: %v", enc, out, err)
		}
		if !reflect.DeepEqual(back, in) {
			t.Fatalf("JSON(%s) = %s decodes to %q", enc, out, back)
		}
	}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if worthTrying(r) {
			batch = append(batch, r)
		}
		if len(batch) == 256 {
			check()
		}
	}
	if len(batch) > 0 {
		check()
	}
}

func TestJSONLeavesCleanInputAlone(t *testing.T) {
	in := []byte(`{"a":"b","c":[1,2]}`)
	if got := JSON(in); &got[0] != &in[0] {
		t.Error("JSON copied input that needed no escape")
	}
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{"", "plain", "a\u202Eb", "\uFEFF\u200B", "\U000E0041", "\xff", "\"\\\n", strings.Repeat("\u2066", 3)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		out := JSON(enc)
		var back, want string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("JSON(%s) = %s doesn't decode: %v", enc, out, err)
		}
		_ = json.Unmarshal(enc, &want)
		if back != want {
			t.Fatalf("JSON(%s) = %s decodes to %q, want %q", enc, out, back, want)
		}
		line := Line(s)
		if strings.ContainsAny(line, "\n\r\t") {
			t.Fatalf("Line(%q) = %q keeps a line break or tab", s, line)
		}
	})
}
