package lab

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSources(t *testing.T) {
	const deb822 = `Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://src.example/debian
Suites: bookworm

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
`
	const oneLine = `# a comment
deb [arch=amd64 signed-by=/k.gpg] https://packages.example/apt cloud-sdk main
deb-src http://deb.debian.org/debian bookworm main
deb http://mirror.example/debian/ bookworm main contrib
`
	got := ParseSources([]byte(deb822 + "\n" + oneLine))
	want := []SourceEntry{
		{URI: "http://deb.debian.org/debian", Suites: []string{"bookworm", "bookworm-updates"}},
		{URI: "http://deb.debian.org/debian-security", Suites: []string{"bookworm-security"}},
		{URI: "https://packages.example/apt", Suites: []string{"cloud-sdk"}},
		{URI: "http://mirror.example/debian/", Suites: []string{"bookworm"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseSources:\n got %+v\nwant %+v", got, want)
	}
	s := PickSources(got, "bookworm")
	if s != (Sources{Mirror: "http://deb.debian.org/debian", Updates: true, Security: "http://deb.debian.org/debian-security"}) {
		t.Errorf("PickSources = %+v", s)
	}
	list := s.List("bookworm")
	for _, l := range []string{
		"deb http://deb.debian.org/debian bookworm main\n",
		"deb http://deb.debian.org/debian bookworm-updates main\n",
		"deb http://deb.debian.org/debian-security bookworm-security main\n",
	} {
		if !strings.Contains(list, l) {
			t.Errorf("List lacks %q:\n%s", l, list)
		}
	}
}

func TestPickSourcesFallback(t *testing.T) {
	if s := PickSources(nil, "bookworm"); s.Mirror != DefaultMirror || s.Updates || s.Security != "" {
		t.Errorf("no sources: %+v", s)
	}
	// An https archive is taken when no http one holds the suite.
	s := PickSources([]SourceEntry{{URI: "https://m.example/debian/", Suites: []string{"bookworm"}}}, "bookworm")
	if s.Mirror != "https://m.example/debian" {
		t.Errorf("https only: %+v", s)
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		`/a/b`:         "/a/b",
		`/a\040b`:      "/a b",
		`/a\011b\134c`: "/a\tb\\c",
		`/trailing\04`: `/trailing\04`,
		`/not\9octal`:  `/not\9octal`,
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseSources(f *testing.F) {
	f.Add([]byte("deb http://deb.debian.org/debian bookworm main\n"))
	f.Add([]byte("Types: deb\nURIs: http://a/ http://b/\nSuites: bookworm\n\n"))
	f.Add([]byte("deb [ arch=amd64 ] http://a bookworm\n"))
	f.Add([]byte("deb [unterminated http://a bookworm\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, e := range ParseSources(data) {
			if e.URI == "" || strings.ContainsAny(e.URI, " \t\n") {
				t.Errorf("entry with a bad URI: %+v", e)
			}
		}
		s := PickSources(ParseSources(data), "bookworm")
		if s.Mirror == "" {
			t.Error("no mirror picked")
		}
	})
}
