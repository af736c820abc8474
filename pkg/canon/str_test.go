package canon

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// stringSeeds are JSON strings and near-strings: escapes of every kind,
// surrogates paired, lone and reversed, \u0000, U+2028, invalid UTF-8, and
// runs long enough for the eight-byte scan.
var stringSeeds = []string{
	`""`, `"a"`, `"\u0041\/\u00e9"`, `"\ud800"`, `"\ud800x"`, `"\ud800\u0041"`, `"\udc00\ud800"`,
	`"\ud83d\ude00"`, `"\ud83d\ude0"`, "\"\u2028\u2029\"", `"\u2028"`, `"\u0000\u0001\u001f\u007f"`,
	`"\n\r\t\b\f\u005c\u0022"`, `"\x"`, `"\'"`, `"\u12"`, "\"a\x01\"", "\"\xff\"", "\"\xe2\x80\"",
	"\"\xed\xa0\x80\"", "\"\uFFFD\"", `"a"b"`, `"a\"`, `"`, `x`, ` "a"`, `"a" `, `"\"`,
	`"` + strings.Repeat("file 0\\n", 40) + `"`, `"` + strings.Repeat("abcdefgh", 9) + `\u00e9"`,
	`"` + strings.Repeat("abcdéfgh", 9) + "\xff" + `"`, `"` + strings.Repeat("x", 17) + "\x1f" + `"`,
	"\"" + strings.Repeat("~\x7f", 20) + "\"",
}

// FuzzUnquote checks Unquote against encoding/json's Unmarshal into a
// string: the same value for what it accepts, and what it accepts is
// exactly what Unmarshal accepts of a string with no space around it.
func FuzzUnquote(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, ok := Unquote(in)
		var want string
		err := json.Unmarshal(in, &want)
		bare := len(in) > 0 && in[0] == '"' && in[len(in)-1] == '"'
		if ok != (err == nil && bare) {
			t.Fatalf("Unquote(%q) ok %v, json.Unmarshal: %v", in, ok, err)
		}
		if ok && got != want {
			t.Fatalf("Unquote(%q) = %q, json.Unmarshal %q", in, got, want)
		}
	})
}

// FuzzAppendString checks AppendString against Marshal of the string, and
// against encoding/json with HTML escaping off for valid UTF-8.
func FuzzAppendString(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
		if v, ok := Unquote([]byte(s)); ok {
			f.Add(v)
		}
	}
	f.Add("<&>\u2028\u2029\x00\x7f\b\f\xff\xed\xa0\x80")
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(b.String(), "\n")
		got := AppendString([]byte("x"), s)
		if utf8.ValidString(s) && string(got) != "x"+want {
			t.Fatalf("AppendString(%q) = %s, encoding/json %s", s, got[1:], want)
		}
		m, err := Marshal(s)
		if err != nil || string(got) != "x"+string(m) {
			t.Fatalf("AppendString(%q) = %s, Marshal %s (%v)", s, got[1:], m, err)
		}
	})
}

// FuzzStringScan checks the fast reading of a string (the eight-byte scan)
// against a byte-at-a-time one: where it ends, and whether the string's
// canonical form is its own bytes.
func FuzzStringScan(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 || in[0] != '"' {
			return
		}
		fs := &fast{data: in}
		raw, plain, ok := fs.str()
		end, wantPlain, wantOK := slowStr(in)
		if ok != wantOK || ok && (len(raw) != end || plain != wantPlain) {
			t.Fatalf("str(%q) = %q %v %v, want end %d plain %v ok %v", in, raw, plain, ok, end, wantPlain, wantOK)
		}
		if ok {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				t.Fatalf("str accepted %q, encoding/json refuses it", raw)
			}
			if plain && !bytes.Equal(AppendString(nil, s), raw) {
				t.Fatalf("%q is plain, its canonical form is %s", raw, AppendString(nil, s))
			}
		}
	})
}

// slowStr is the string reading the fast one replaced, byte by byte.
func slowStr(d []byte) (end int, plain, ok bool) {
	plain = true
	for i := 1; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			body := d[1:i]
			if plain {
				plain = utf8.Valid(body) && !bytes.Contains(body, []byte("\u2028")) && !bytes.Contains(body, []byte("\u2029"))
			}
			return i + 1, plain, true
		case c < 0x20:
			return 0, false, false
		case c == '\\':
			plain = false
			if i+1 >= len(d) {
				return 0, false, false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+6 > len(d) {
					return 0, false, false
				}
				for _, h := range d[i+2 : i+6] {
					if !isHex(h) {
						return 0, false, false
					}
				}
				i += 5
			default:
				return 0, false, false
			}
		}
	}
	return 0, false, false
}
