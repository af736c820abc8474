package envfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every value and malformed line in the error cases holds the marker Zq9, so
// the test can check that no message quotes any part of one.
const marker = "Zq9"

func TestParseLine(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		value string // the value of the one variable the line assigns
		err   string // or the exact error
	}{
		// Accepted lines.
		{"plain", "A=Zq9", "Zq9", ""},
		{"empty value", "A=", "", ""},
		{"blanks around =", "A \t= \tZq9", "Zq9", ""},
		{"leading blanks", "  \tA=Zq9", "Zq9", ""},
		{"trailing blanks trimmed", "A=Zq9 \t ", "Zq9", ""},
		{"inner blanks kept", "A=one two\tthree", "one two\tthree", ""},
		{"export prefix", "export A=Zq9", "Zq9", ""},
		{"export prefix with tab and blanks", "export\t  A = Zq9", "Zq9", ""},
		{"export is a name", "export=Zq9", "Zq9", ""},
		{"export is a name before blanks", "export = Zq9", "Zq9", ""},
		{"name with digits and _", "_A1_b2=x", "x", ""},
		{"lower case name", "db_pass=x", "x", ""},
		{"hash glued on", "A=Zq9#frag", "Zq9#frag", ""},
		{"comment after blank and hash in url", "A=https://x/#y", "https://x/#y", ""},
		{"dollar is text", "A=$OTHER ${B} $(c)", "$OTHER ${B} $(c)", ""},
		{"quotes inside unquoted", `A=it's "x"`, `it's "x"`, ""},
		{"equals in value", "A=b=c==", "b=c==", ""},
		{"backslash inside unquoted", `A=C:\x\y`, `C:\x\y`, ""},
		{"double quoted", `A="Zq9 # not a comment"`, "Zq9 # not a comment", ""},
		{"double quoted empty", `A=""`, "", ""},
		{"double quoted with single quote", `A="it's"`, "it's", ""},
		{"double quoted with dollar", `A="$B"`, "$B", ""},
		{"double quoted keeps blanks", `A="  x  "`, "  x  ", ""},
		{"double quoted then comment", `A="x" # note`, "x", ""},
		{"double quoted then glued comment", `A="x"#note`, "x", ""},
		{"double quoted then blanks", "A=\"x\" \t", "x", ""},
		{"single quoted", `A='Zq9 "x" \n'`, `Zq9 "x" \n`, ""},
		{"single quoted lone backslash", `A='a\b'`, `a\b`, ""},
		{"single quoted empty", `A=''`, "", ""},
		{"single quoted then comment", `A='x' # c`, "x", ""},
		{"tab in quoted value", "A='a\tb'", "a\tb", ""},
		{"non-ASCII value", "A=café ✓", "café ✓", ""},
		{"reference markers are text here", "A=\uFDD0B\uFDD1", "\uFDD0B\uFDD1", ""},
		{"CRLF line ending", "A=Zq9\r\n", "Zq9", ""},
		{"comment line with NUL", "# a\x00b\nA=x", "x", ""},

		// Refused lines.
		{"no equals", "Zq9", "", "zap.env:1: the line has no ="},
		{"export with no equals", "export Zq9", "", "zap.env:1: the line has no ="},
		{"continuation of a key", "MIIEZq9abc+/", "", "zap.env:1: the line has no ="},
		{"empty name", "=Zq9", "", "zap.env:1: what stands before the = isn't a variable name"},
		{"name starts with digit", "1A=Zq9", "", "zap.env:1: what stands before the = isn't a variable name"},
		{"name with dash", "A-B=Zq9", "", "zap.env:1: what stands before the = isn't a variable name"},
		{"name with dot", "a.b=Zq9", "", "zap.env:1: what stands before the = isn't a variable name"},
		{"name with blank", "A B=Zq9", "", "zap.env:1: what stands before the = isn't a variable name"},
		{"export without blank", "export-A=Zq9", "", "zap.env:1: what stands before the = isn't a variable name"},
		{"colon separator", "A: Zq9=x", "", "zap.env:1: what stands before the = isn't a variable name"},
		{"non-ASCII name", "É=Zq9", "", "zap.env:1: what stands before the = isn't a variable name"},
		{"double quote left open", `A="Zq9`, "", "zap.env:1: A: the value's quote is left open"},
		{"single quote left open", `A='Zq9`, "", "zap.env:1: A: the value's quote is left open"},
		{"multi-line double quoted", "A=\"Zq9\nrest\"", "", "zap.env:1: A: the value's quote is left open"},
		{"text after double quote", `A="Zq9"x`, "", "zap.env:1: A: text follows the value's closing quote"},
		{"text after single quote", `A='Zq9' Zq9`, "", "zap.env:1: A: text follows the value's closing quote"},
		{"escaped double quote", `A="Zq9\"x"`, "", "zap.env:1: A: the double-quoted value holds a backslash"},
		{"newline escape", `A="Zq9\n"`, "", "zap.env:1: A: the double-quoted value holds a backslash"},
		{"backslash in double quotes", `A="C:\Zq9"`, "", "zap.env:1: A: the double-quoted value holds a backslash"},
		{"escaped single quote", `A='Zq9\'s'`, "", "zap.env:1: A: the single-quoted value holds a backslash before a backslash or the closing quote"},
		{"double backslash in single quotes", `A='Zq9\\x'`, "", "zap.env:1: A: the single-quoted value holds a backslash before a backslash or the closing quote"},
		{"backquoted", "A=`Zq9`", "", "zap.env:1: A: the value begins with a backquote"},
		{"value begins with hash", "A=#Zq9", "", "zap.env:1: A: the unquoted value begins with #"},
		{"blank then hash", "A= #Zq9", "", "zap.env:1: A: the unquoted value begins with #"},
		{"hash after space", "A=Zq9 # note", "", "zap.env:1: A: the unquoted value holds # after a blank"},
		{"hash after tab", "A=Zq9\t#x", "", "zap.env:1: A: the unquoted value holds # after a blank"},
		{"trailing backslash", `A=Zq9\`, "", "zap.env:1: A: the unquoted value ends in a backslash"},
		{"trailing backslash then blank", `A=Zq9\ `, "", "zap.env:1: A: the unquoted value ends in a backslash"},
		{"escape character", "A=Zq9\x1b[31m", "", "zap.env:1: A: the value holds a control character other than tab"},
		{"DEL", "A=Zq9\x7f", "", "zap.env:1: A: the value holds a control character other than tab"},
		{"control in quotes", "A='Zq9\x07'", "", "zap.env:1: A: the value holds a control character other than tab"},
		{"C1 control", "A=Zq9\u0090", "", "zap.env:1: A: the value holds a control character other than tab"},
		{"lone carriage return", "A=Zq9\rB=x", "", "zap.env:1: A: the line holds a carriage return, vertical tab, form feed, U+0085, U+2028 or U+2029"},
		{"line separator", "A=Zq9\u2028B=x", "", "zap.env:1: A: the line holds a carriage return, vertical tab, form feed, U+0085, U+2028 or U+2029"},
		{"paragraph separator in quotes", "A='Zq9\u2029'", "", "zap.env:1: A: the line holds a carriage return, vertical tab, form feed, U+0085, U+2028 or U+2029"},
		{"line separator in a comment", "# Zq9\u2028B=x", "", "zap.env:1: the line holds a carriage return, vertical tab, form feed, U+0085, U+2028 or U+2029"},
		{"next line in a comment", "# Zq9\u0085B=x", "", "zap.env:1: the line holds a carriage return, vertical tab, form feed, U+0085, U+2028 or U+2029"},
		{"form feed", "A=Zq9\f", "", "zap.env:1: A: the line holds a carriage return, vertical tab, form feed, U+0085, U+2028 or U+2029"},
		{"NUL in value", "A=Zq9\x00x", "", "zap.env:1: A: the line holds a NUL"},
		{"NUL in quoted value", "A='Zq9\x00'", "", "zap.env:1: A: the line holds a NUL"},
		{"NUL in name", "A\x00=Zq9", "", "zap.env:1: the line holds a NUL"},
		{"invalid UTF-8", "A=Zq9\xff", "", "zap.env:1: A: the line isn't valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars, err := Parse("zap.env", []byte(tt.in))
			if tt.err != "" {
				if err == nil {
					t.Fatalf("Parse(%q) = %+v, want error %q", tt.in, vars, tt.err)
				}
				if err.Error() != tt.err {
					t.Fatalf("Parse(%q) error\n got %q\nwant %q", tt.in, err, tt.err)
				}
				if !strings.Contains(tt.in, marker) {
					t.Fatalf("test case %q holds no %s", tt.in, marker)
				}
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error %T isn't an *Error", err)
				}
				assertQuotesNothing(t, tt.in, e)
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if len(vars) != 1 || vars[0].Value != tt.value {
				t.Fatalf("Parse(%q) = %+v, want one variable with value %q", tt.in, vars, tt.value)
			}
		})
	}
	if len(tests) < 40 {
		t.Fatalf("only %d cases", len(tests))
	}
}

// assertQuotesNothing checks that an error message and hint hold no marker
// and nothing of the line after its name.
func assertQuotesNothing(t *testing.T, line string, e *Error) {
	t.Helper()
	for _, s := range []string{e.Error(), e.Hint()} {
		if strings.Contains(s, marker) {
			t.Fatalf("message %q quotes the line %q", s, line)
		}
	}
	if e.Name != "" {
		_, rest, _ := strings.Cut(line, "=")
		if rest != "" && strings.Contains(e.Error(), rest) {
			t.Fatalf("message %q quotes the value of %q", e.Error(), line)
		}
	}
}

func TestParseFile(t *testing.T) {
	in := "\uFEFF# deploy settings\r\n" +
		"\n" +
		"   \t\n" +
		"HOST=db.example.com\r\n" +
		"  # indented comment\n" +
		"export DB_PASS='p\"a$s'\n" +
		"EMPTY=\n" +
		`GREETING="it's # here" # why` + "\n" +
		"LAST=x"
	want := []Var{
		{Name: "HOST", Value: "db.example.com", Line: 4},
		{Name: "DB_PASS", Value: `p"a$s`, Line: 6},
		{Name: "EMPTY", Value: "", Line: 7},
		{Name: "GREETING", Value: "it's # here", Line: 8},
		{Name: "LAST", Value: "x", Line: 9},
	}
	got, err := Parse("zap.env", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func TestParseEmpty(t *testing.T) {
	for _, in := range []string{"", "\uFEFF", "\n\n", "# only\n"} {
		vars, err := Parse("e", []byte(in))
		if err != nil || len(vars) != 0 {
			t.Errorf("Parse(%q) = %+v, %v; want nothing", in, vars, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in, err, hint string
		problem             Problem
	}{
		{"duplicate names the first line", "A=1\n\nB=2\nexport A=Zq9\n", "prod.env:4: A: assigned twice (first on line 1)", "keep one assignment", Duplicate},
		{"first error wins", "A=1\nB=\"Zq9\nC\n", "prod.env:2: B: the value's quote is left open", "close the quote on the same line; a value can't span lines", OpenQuote},
		{"a key pasted across lines", "KEY=-----BEGIN Zq9\nMIIBZq9\n", "prod.env:2: the line has no =", "write NAME=VALUE on one line; a value can't span lines", NoEquals},
		{"a byte-order mark past the start", "A=1\n\uFEFFB=Zq9\n", "prod.env:2: what stands before the = isn't a variable name", "a name is letters, digits and _, not starting with a digit", BadName},
		{"line numbers count CRLF lines", "A=1\r\nB=2\r\nC=#Zq9\r\n", "prod.env:3: C: the unquoted value begins with #", "quote the value, or move the comment to its own line", HashStart},
		{"a hint for a hash", "A=Zq9 # c", "prod.env:1: A: the unquoted value holds # after a blank", "quote the value, or move the comment to its own line", HashAfterBlank},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("prod.env", []byte(tt.in))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%q) error = %v, want an *Error", tt.in, err)
			}
			if e.Error() != tt.err || e.Hint() != tt.hint || e.Problem != tt.problem {
				t.Fatalf("got  %q / %q / %s\nwant %q / %q / %s", e.Error(), e.Hint(), e.Problem, tt.err, tt.hint, tt.problem)
			}
			assertQuotesNothing(t, tt.in, e)
		})
	}
}

func TestEveryProblemHasAMessage(t *testing.T) {
	for p, m := range problems {
		if m.message == "" {
			t.Errorf("problem %s has no message", p)
		}
	}
}

func TestIsName(t *testing.T) {
	for s, want := range map[string]bool{
		"A": true, "_": true, "a1": true, "_1": true, "ABC_DEF_9": true,
		"": false, "1": false, "1A": false, "A-B": false, "A.B": false, "A B": false, "Ä": false, "A=": false,
	} {
		if got := IsName(s); got != want {
			t.Errorf("IsName(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"A=1", "export A='x'\nB=\"y\" # c", "\uFEFFA=b\r\n", "A=\"x", "A=x\\", "# c\u2028B=1",
		"A=x #c", "A=1\nA=2", "A=a\x00", "\n\n  \t# x\nB=$C",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		vars, err := Parse("f.env", data)
		again, err2 := Parse("f.env", data)
		if !reflect.DeepEqual(vars, again) || (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("Parse isn't deterministic on %q", data)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Line < 1 || e.Problem.message() == "" {
				t.Fatalf("Parse(%q) error %#v", data, err)
			}
			return
		}
		seen := map[string]bool{}
		for _, v := range vars {
			if !IsName(v.Name) || seen[v.Name] {
				t.Fatalf("Parse(%q) gave name %q", data, v.Name)
			}
			seen[v.Name] = true
			if strings.ContainsAny(v.Value, "\x00\n\r\v\f\u0085\u2028\u2029") {
				t.Fatalf("Parse(%q) gave value %q", data, v.Value)
			}
		}
	})
}

// TestBounds: a file of MaxLines lines and a value of MaxValue bytes
// parse; one line or one byte more is refused naming the bound, never the
// value; Load refuses a file past MaxSize before parsing it.
func TestBounds(t *testing.T) {
	lines := strings.Repeat("# c\n", MaxLines-1) + "A=1\n"
	if vars, err := Parse("f.env", []byte(lines)); err != nil || len(vars) != 1 {
		t.Fatalf("%d lines: %v, %v", MaxLines, vars, err)
	}
	_, err := Parse("f.env", []byte(lines+"B=2\n"))
	want := fmt.Sprintf("f.env:%d: the file goes on past line %d, the most lines an env file may have", MaxLines+1, MaxLines)
	if err == nil || err.Error() != want {
		t.Fatalf("%d lines: got %v, want %s", MaxLines+1, err, want)
	}

	value := strings.Repeat("v", MaxValue)
	if vars, err := Parse("f.env", []byte("BIG="+value+"\n")); err != nil || len(vars) != 1 || vars[0].Value != value {
		t.Fatalf("a value of %d bytes: %v", MaxValue, err)
	}
	in := "BIG='" + marker + value + "'\n"
	_, err = Parse("f.env", []byte(in))
	var e *Error
	if !errors.As(err, &e) || e.Problem != ValueTooLong || e.Error() != "f.env:1: BIG: the value is longer than 1024 KiB, the most an env-file value may be" {
		t.Fatalf("a value of %d bytes: %v", MaxValue+1, err)
	}
	assertQuotesNothing(t, in, e)

	path := filepath.Join(t.TempDir(), "huge.env")
	if err := os.WriteFile(path, []byte("A="+strings.Repeat("x", MaxSize)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = Load(path, func(string, string) bool { return false })
	if err == nil || err.Error() != "env file "+path+" is larger than 16 MiB, the most an env file may hold" {
		t.Fatalf("a file past %d bytes: %v", MaxSize, err)
	}
}
