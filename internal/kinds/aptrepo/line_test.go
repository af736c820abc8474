package aptrepo

import "testing"

// TestSourceLine: signed-by joins the line's options, made when it has
// none, and replaces one the line names.
func TestSourceLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"deb https://r.example/apt bookworm main", "deb [signed-by=/k.asc] https://r.example/apt bookworm main"},
		{"deb-src  https://r.example/apt $VERSION_CODENAME main", "deb-src [signed-by=/k.asc] https://r.example/apt $VERSION_CODENAME main"},
		{"deb [arch=amd64] https://r.example/apt stable main", "deb [arch=amd64 signed-by=/k.asc] https://r.example/apt stable main"},
		{"deb [ arch=amd64 signed-by=/old.gpg ] https://r.example/apt stable main", "deb [arch=amd64 signed-by=/k.asc] https://r.example/apt stable main"},
	} {
		if got := SourceLine(c.in, "/k.asc"); got != c.want {
			t.Errorf("SourceLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
