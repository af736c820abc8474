package lockhash

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/secret"
	"github.com/zap-go/zap/pkg/declaration"
)

const pinA = "bc96f6c75221fe1eef3eb30363f87ef17e2b62e02f35a401ff36c054fba3d3fe"
const pinB = "db7fcba5c297aab1a21b4f178f1b53826bd0e74d9d61322b5c32877c279a17b7"

// decl reads a declaration of a local target holding resources, a JSON
// list.
func decl(t testing.TB, resources string) *declaration.Declaration {
	t.Helper()
	var d declaration.Declaration
	doc := `{"format":"zap.declaration/1","target":{"local":true},"resources":` + resources + `}`
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return &d
}

func env(vars map[string]string) resolve.Env {
	return func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
}

// hashOf is the config_hash of d's resource id under vars, with pin.
func hashOf(t testing.TB, d *declaration.Declaration, vars map[string]string, id, pin string) string {
	t.Helper()
	h := New(d, resolve.Resolve(d, env(vars)))
	for i := range d.Resources {
		if d.Resources[i].ID == id {
			ch, err := h.ConfigHash(&d.Resources[i], pin)
			if err != nil {
				t.Fatal(err)
			}
			return ch
		}
	}
	t.Fatalf("no resource %s", id)
	return ""
}

func remoteFile(extra, content string) string {
	return `[{"id":"zig","type":"file","path":"/opt/zig.txt"` + extra + `,"content":{"type":"remote"` + content + `}}]`
}

// What the hash covers moves it; what it leaves out doesn't.
func TestConfigHashCoversAndLeavesOut(t *testing.T) {
	base := hashOf(t, decl(t, remoteFile("", `,"url":"https://example.org/zig.tar.gz","extract":{"type":"tar.gz","strip_components":1}`)), nil, "zig", pinA)
	if len(base) != 64 || !lock.IsPin(base) {
		t.Fatalf("config_hash %q isn't 64 lowercase hex", base)
	}
	same := map[string]string{
		"identity": `[{"id":"zig","name":"Zig","depends_on":["d"],"type":"file","path":"/opt/zig.txt","content":{"type":"remote","url":"https://example.org/zig.tar.gz","extract":{"type":"tar.gz","strip_components":1}}},{"id":"d","type":"directory","path":"/opt"}]`,
		"auth":     remoteFile("", `,"url":"https://example.org/zig.tar.gz","extract":{"type":"tar.gz","strip_components":1},"auth":{"$env":"BYTES_TOKEN"}`),
		"validate": remoteFile(`,"validate":"true"`, `,"url":"https://example.org/zig.tar.gz","extract":{"type":"tar.gz","strip_components":1}`),
	}
	for name, doc := range same {
		if got := hashOf(t, decl(t, doc), map[string]string{"BYTES_TOKEN": "a-long-bearer-token"}, "zig", pinA); got != base {
			t.Errorf("%s moved the config_hash", name)
		}
	}
	moved := map[string]string{
		"url":              remoteFile("", `,"url":"https://example.org/zig-2.tar.gz","extract":{"type":"tar.gz","strip_components":1}`),
		"strip_components": remoteFile("", `,"url":"https://example.org/zig.tar.gz","extract":{"type":"tar.gz","strip_components":2}`),
		"mode":             remoteFile(`,"mode":"600"`, `,"url":"https://example.org/zig.tar.gz","extract":{"type":"tar.gz","strip_components":1}`),
	}
	for name, doc := range moved {
		if got := hashOf(t, decl(t, doc), nil, "zig", pinA); got == base {
			t.Errorf("%s didn't move the config_hash", name)
		}
	}
	if got := hashOf(t, decl(t, remoteFile("", `,"url":"https://example.org/zig.tar.gz","extract":{"type":"tar.gz","strip_components":1}`)), nil, "zig", pinB); got == base {
		t.Error("the pin isn't folded in")
	}
}

// A secret reference is hashed as its token: rotating it, or leaving it
// unset, doesn't move the hash. A plain one is hashed by value.
func TestConfigHashReferences(t *testing.T) {
	d := decl(t, remoteFile("", `,"url":{"$text":["https://example.org/",{"$env":"ZIG_VERSION"},"/zig?token=",{"$env":"DL_TOKEN"}]}`))
	a := hashOf(t, d, map[string]string{"ZIG_VERSION": "0.13", "DL_TOKEN": "first-token-value"}, "zig", pinA)
	if b := hashOf(t, d, map[string]string{"ZIG_VERSION": "0.13", "DL_TOKEN": "rotated-token-value"}, "zig", pinA); b != a {
		t.Error("rotating a secret moved the config_hash")
	}
	if b := hashOf(t, d, map[string]string{"ZIG_VERSION": "0.13"}, "zig", pinA); b != a {
		t.Error("a secret by its name, unset, moved the config_hash")
	}
	if b := hashOf(t, d, map[string]string{"ZIG_VERSION": "0.14", "DL_TOKEN": "first-token-value"}, "zig", pinA); b == a {
		t.Error("a plain reference's value doesn't count")
	}
}

// A secret's value inside a plain value is masked as the secret's token, so
// rotating the two together doesn't move the hash; a secret (or a form of
// it) shorter than 8 characters isn't masked.
func TestConfigHashMasksSecretValuesInside(t *testing.T) {
	d := decl(t, `[{"id":"zig","type":"file","path":"/opt/zig","content":{"type":"remote","url":{"$env":"DOWNLOAD_URL"}}},
		{"id":"s","type":"script","check":"true","run":"true","env":{"K":{"$env":"SIGNING_SECRET"}}}]`)
	a := hashOf(t, d, map[string]string{"DOWNLOAD_URL": "https://example.org/sig-0123456789/zig", "SIGNING_SECRET": "sig-0123456789"}, "zig", pinA)
	b := hashOf(t, d, map[string]string{"DOWNLOAD_URL": "https://example.org/sig-9876543210/zig", "SIGNING_SECRET": "sig-9876543210"}, "zig", pinA)
	if a != b {
		t.Error("a secret rotated with the URL that carries it moved the config_hash")
	}
	if c := hashOf(t, d, map[string]string{"DOWNLOAD_URL": "https://example.org/sig-0123456789/zig2", "SIGNING_SECRET": "sig-0123456789"}, "zig", pinA); c == a {
		t.Error("the rest of the URL doesn't count")
	}
	// A short secret masks nothing: its value doesn't matter to the hash.
	short := hashOf(t, d, map[string]string{"DOWNLOAD_URL": "https://example.org/zig", "SIGNING_SECRET": "zig"}, "zig", pinA)
	other := hashOf(t, d, map[string]string{"DOWNLOAD_URL": "https://example.org/zig", "SIGNING_SECRET": "not-in-the-url-at-all"}, "zig", pinA)
	if short != other {
		t.Error("a secret under 8 characters was masked inside the URL")
	}
	// Nor does a form under 8 characters: the value trimmed.
	trimmed := hashOf(t, d, map[string]string{"DOWNLOAD_URL": "https://example.org/zig", "SIGNING_SECRET": "  zig   "}, "zig", pinA)
	if trimmed != other {
		t.Error("a secret whose trimmed form is under 8 characters was masked by that form")
	}
}

// A build's run, env and verify are hashed as declared: a reference there
// counts as the reference, whatever its value.
func TestConfigHashBuildAsDeclared(t *testing.T) {
	build := func(run string) string {
		return `[{"id":"b","type":"build","source":{"type":"remote","url":"https://example.org/src.tar.gz","verify":{"scheme":"minisign","public_key":"RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3","signature_url":{"$env":"SIG_URL"}}},` +
			`"run":` + run + `,"output":"/opt/b","env":{"CC":{"$env":"CC_PATH"}}}]`
	}
	d := decl(t, build(`{"$text":["make ",{"$env":"JOBS"}]}`))
	a := hashOf(t, d, map[string]string{"JOBS": "-j2", "CC_PATH": "/usr/bin/cc", "SIG_URL": "https://example.org/a.minisig"}, "b", pinA)
	if b := hashOf(t, d, map[string]string{"JOBS": "-j8", "CC_PATH": "/usr/bin/clang", "SIG_URL": "https://example.org/b.minisig"}, "b", pinA); b != a {
		t.Error("a reference's value in run, env or verify moved the config_hash")
	}
	if c := hashOf(t, decl(t, build(`{"$text":["make V=1 ",{"$env":"JOBS"}]}`)), map[string]string{"JOBS": "-j2"}, "b", pinA); c == a {
		t.Error("the run as declared doesn't count")
	}
}

func stand(t *testing.T, d *declaration.Declaration, vars map[string]string, l *lock.Lock) *Report {
	t.Helper()
	rep, err := New(d, resolve.Resolve(d, env(vars))).Stand(l)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// minted is the lock entry of d's resource id minted under vars.
func minted(t *testing.T, d *declaration.Declaration, vars map[string]string, id, pin string) lock.Entry {
	t.Helper()
	return lock.Entry{ID: id, Kind: "remote_file", Blake3: pin, ConfigHash: hashOf(t, d, vars, id, pin)}
}

func TestStanding(t *testing.T) {
	files := `[{"id":"zig","type":"file","path":"/opt/zig","content":{"type":"remote","url":{"$text":["https://example.org/",{"$env":"ZIG_VERSION"},"/zig"]}}},
		{"id":"vendored","type":"file","path":"/opt/v","content":{"type":"remote","url":"https://example.org/v","blake3":"` + pinA + `"}},
		{"id":"inline","type":"file","path":"/opt/i","content":{"type":"inline","content":"x"}}]`
	d := decl(t, files)
	vars := map[string]string{"ZIG_VERSION": "0.13"}
	entry := minted(t, d, vars, "zig", pinA)
	orphan := lock.Entry{ID: "gone", Kind: "build", Blake3: pinA, ConfigHash: pinB}

	rep := stand(t, d, vars, &lock.Lock{Entries: []lock.Entry{entry, orphan}})
	if len(rep.Tracked) != 1 || rep.Of("zig").Class != Current || rep.Of("zig").Entry.Blake3 != pinA {
		t.Errorf("current: %+v", rep.Tracked)
	}
	if len(rep.Orphans) != 1 || rep.Orphans[0].ID != "gone" || rep.Orphans[0].Class != Orphaned {
		t.Errorf("orphans: %+v", rep.Orphans)
	}
	if n := len(rep.Findings()); n != 1 {
		t.Errorf("findings: %d, want the orphan alone", n)
	}
	if rep := stand(t, d, vars, nil); rep.Of("zig").Class != Missing || rep.Of("zig").Entry != nil {
		t.Errorf("no lock: %+v", rep.Tracked)
	}
	if rep := stand(t, d, map[string]string{"ZIG_VERSION": "0.14"}, &lock.Lock{Entries: []lock.Entry{entry}}); rep.Of("zig").Class != Stale {
		t.Errorf("a moved version: %+v", rep.Tracked)
	}
	wrongKind := entry
	wrongKind.Kind = "build"
	if rep := stand(t, d, vars, &lock.Lock{Entries: []lock.Entry{wrongKind}}); rep.Of("zig").Class != Stale {
		t.Errorf("an entry of another kind: %+v", rep.Tracked)
	}
	got := stand(t, d, nil, &lock.Lock{Entries: []lock.Entry{entry}}).Of("zig")
	if got.Class != Unverifiable || !slices.Equal(got.Unset, []string{"ZIG_VERSION"}) {
		t.Errorf("a plain reference unset: %+v", got)
	}
	if !strings.Contains(got.Reason(), "while ZIG_VERSION is unset") {
		t.Errorf("reason: %s", got.Reason())
	}
}

// While a variable the config uses as a secret is unset, an entry whose URL
// holds a plain reference isn't minted, reads current while its address
// matches, and unverifiable (naming the secret) once it doesn't.
func TestStandingUnsetSecret(t *testing.T) {
	doc := `[{"id":"zig","type":"file","path":"/opt/zig","content":{"type":"remote","url":{"$text":["https://example.org/",{"$env":"ZIG_VERSION"},"/zig"]}}},
		{"id":"s","type":"script","check":"true","run":"true","env":{"K":{"$env":"API_TOKEN"}}}]`
	d := decl(t, doc)
	set := map[string]string{"ZIG_VERSION": "0.13", "API_TOKEN": "a-long-api-token"}
	entry := minted(t, d, set, "zig", pinA)
	unset := map[string]string{"ZIG_VERSION": "0.13"}
	h := New(d, resolve.Resolve(d, env(unset)))
	f, _ := d.Resources[0].Fetched()
	if got := h.UnsetSecrets(&d.Resources[0], f); !slices.Equal(got, []string{"API_TOKEN"}) {
		t.Errorf("UnsetSecrets = %v, want API_TOKEN", got)
	}
	if got := stand(t, d, unset, &lock.Lock{Entries: []lock.Entry{entry}}).Of("zig"); got.Class != Current {
		t.Errorf("a matching address with the secret unset: %+v", got)
	}
	moved := map[string]string{"ZIG_VERSION": "0.14"}
	if got := stand(t, d, moved, &lock.Lock{Entries: []lock.Entry{entry}}).Of("zig"); got.Class != Unverifiable || !slices.Equal(got.Unset, []string{"API_TOKEN"}) {
		t.Errorf("a changed address with the secret unset: %+v", got)
	}
	// With no plain reference in the address, an unset secret blocks
	// nothing.
	plain := decl(t, strings.Replace(doc, `{"$text":["https://example.org/",{"$env":"ZIG_VERSION"},"/zig"]}`, `"https://example.org/zig"`, 1))
	hp := New(plain, resolve.Resolve(plain, env(nil)))
	fp, _ := plain.Resources[0].Fetched()
	if got := hp.UnsetSecrets(&plain.Resources[0], fp); len(got) != 0 {
		t.Errorf("UnsetSecrets with a literal URL = %v", got)
	}
}

// A reference read as a secret by its value's form while minted, and as
// plain when checked, never reads current.
func TestStandingSecretByValueReading(t *testing.T) {
	d := decl(t, remoteFile("", `,"url":{"$env":"MIRROR"}`))
	entry := minted(t, d, map[string]string{"MIRROR": "https://u:a-long-password@example.org/zig"}, "zig", pinA)
	if got := stand(t, d, map[string]string{"MIRROR": "https://example.org/zig"}, &lock.Lock{Entries: []lock.Entry{entry}}).Of("zig"); got.Class != Stale {
		t.Errorf("minted as a secret, checked as plain: %+v", got)
	}
	if got := stand(t, d, nil, &lock.Lock{Entries: []lock.Entry{entry}}).Of("zig"); got.Class != Unverifiable {
		t.Errorf("minted as a secret, checked unset: %+v", got)
	}
}

// The notes name each reference hashed by name only because of its name or
// its value's form, not a credential or a zap.mask one.
func TestNotes(t *testing.T) {
	d := decl(t, `[{"id":"zig","type":"file","path":"/opt/zig","content":{"type":"remote","auth":{"$env":"BEARER"},"url":{"$text":["https://example.org/",{"$env":"RELEASE_KEY"},"/",{"$env":"MIRROR"},"/",{"$env":"MASKED_ONE"},"/",{"$env":"PLAIN"}]}}}]`)
	d.Mask = []string{"MASKED_ONE"}
	vars := map[string]string{"BEARER": "a-long-bearer", "RELEASE_KEY": "v1", "MIRROR": "https://u:a-long-password@example.org", "MASKED_ONE": "x", "PLAIN": "p"}
	rep := stand(t, d, vars, nil)
	var got []string
	for _, n := range rep.Notes {
		got = append(got, n.Name+": "+n.Reason+" "+strings.Join(n.IDs, ","))
	}
	want := []string{"MIRROR: its value holds a URL with a password zig", "RELEASE_KEY: its name ends in KEY zig"}
	if !slices.Equal(got, want) {
		t.Errorf("notes:\n%q\nwant\n%q", got, want)
	}
}

// FuzzConfigHashEncoding: the document the config_hash hashes is canonical
// JSON that tells any two URLs apart and never holds a secret's value of 8
// characters or more, whatever the URL and the secret.
func FuzzConfigHashEncoding(f *testing.F) {
	f.Add("https://example.org/zig", "https://example.org/zag", "sig-0123456789")
	f.Add("https://e/\"\\\u2028", "https://e/\u2029", "\ttab secret \n")
	f.Add("", "a", "abcdefgh")
	f.Fuzz(func(t *testing.T, u1, u2, secretValue string) {
		d := decl(t, `[{"id":"zig","type":"file","path":"/opt/zig","content":{"type":"remote","url":{"$env":"DOWNLOAD_URL"}}},
			{"id":"s","type":"script","check":"true","run":"true","env":{"K":{"$env":"SIGNING_SECRET"}}}]`)
		doc := func(u string) []byte {
			res := resolve.Resolve(d, env(map[string]string{"DOWNLOAD_URL": u, "SIGNING_SECRET": secretValue}))
			b, err := New(d, res).document(&d.Resources[0], pinA)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		a := doc(u1)
		var v any
		if err := json.Unmarshal(a, &v); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, a)
		}
		if s := strings.TrimSpace(secretValue); utf8.RuneCountInString(s) >= MinSecret && utf8.ValidString(s) && holds(v, s) {
			t.Fatalf("the secret's value is in the document:\n%s", a)
		}
		if string(doc(u1)) != string(a) {
			t.Fatal("the document isn't deterministic")
		}
		secretIn := strings.TrimSpace(secretValue) != "" && (strings.Contains(u1, strings.TrimSpace(secretValue)) || strings.Contains(u2, strings.TrimSpace(secretValue)))
		_, form1 := secret.Value(u1)
		_, form2 := secret.Value(u2)
		// JSON spells every invalid UTF-8 sequence as U+FFFD, as it does
		// in the declaration zap-eval writes; a URL that isn't UTF-8 is
		// refused before it is fetched.
		valid := utf8.ValidString(u1) && utf8.ValidString(u2)
		if u1 != u2 && valid && !secretIn && !form1 && !form2 && string(doc(u2)) == string(a) {
			t.Fatalf("two URLs, one document: %q %q", u1, u2)
		}
	})
}

// holds reports whether a string in the decoded JSON v contains s.
func holds(v any, s string) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, s)
	case map[string]any:
		for _, e := range v {
			if holds(e, s) {
				return true
			}
		}
	}
	return false
}
