package resolve

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
)

// TestResourceHashPlainPath: a resource with no reference, hashed against a
// resolution with no secret value, takes the quick way (its own members,
// canonical), which gives the same bytes as the walk: for every kind of the
// evaluator's golden declaration, and for strings that need escaping.
func TestResourceHashPlainPath(t *testing.T) {
	data, err := os.ReadFile("../../cmd/zap-eval/testdata/script/eval_kinds_golden.txtar")
	if err != nil {
		t.Fatal(err)
	}
	_, golden, ok := strings.Cut(string(data), "-- want.json --\n")
	if !ok {
		t.Fatal("eval_kinds_golden.txtar has no want.json")
	}
	golden, _, _ = strings.Cut(golden, "\n-- ")
	var d declaration.Declaration
	if err := json.Unmarshal([]byte(golden), &d); err != nil {
		t.Fatal(err)
	}
	var extra declaration.Declaration
	if err := json.Unmarshal([]byte(`{"format":"zap.declaration/1","target":{"local":true},"resources":[
		{"id":"e","name":"N","depends_on":["x"],"type":"file","path":"/tmp/a<b>&c é\u2028\"q\"\\","mode":"644","content":{"type":"inline","content":"<html>&amp; \u00e9\t\u0001 \ud83d\ude00\n"}},
		{"id":"x","type":"directory","path":"/tmp/x"}]}`), &extra); err != nil {
		t.Fatal(err)
	}
	resources := append(append([]declaration.Resource{}, d.Resources...), extra.Resources...)
	res := Resolve(&extra, func(string) (string, bool) { return "", false })
	h := NewHasher(res)
	if !h.plain {
		t.Fatal("a resolution with no secret isn't plain")
	}
	plain := 0
	for i := range resources {
		// As Hash does: a fetching resource less its credential, which
		// makes the golden's remote file (auth {"$env":"TOKEN"}) plain.
		r := resources[i].WithoutCredential()
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, envKey) || bytes.Contains(raw, textKey) {
			continue
		}
		plain++
		quick, err := h.plainDoc(r, raw)
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		walked, err := h.walkDoc(r, raw)
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		if !bytes.Equal(quick, walked) {
			t.Errorf("%s: the quick way gives\n%s\nthe walk\n%s", r.ID, quick, walked)
		}
	}
	if plain < 10 {
		t.Fatalf("only %d resources without a reference to compare", plain)
	}
}

// TestResourceHashStable: the hash of a plain resource is the one reports
// have recorded all along (a changed hash would read as drift).
func TestResourceHashStable(t *testing.T) {
	var d declaration.Declaration
	if err := json.Unmarshal([]byte(`{"format":"zap.declaration/1","target":{"local":true},"resources":[
		{"id":"f","name":"N","depends_on":["d"],"type":"file","path":"~/f","mode":"644","content":{"type":"inline","content":"x\n"}},
		{"id":"d","type":"directory","path":"~/d"}]}`), &d); err != nil {
		t.Fatal(err)
	}
	res := Resolve(&d, func(string) (string, bool) { return "", false })
	for i, want := range []string{wantStableF, wantStableD} {
		got, secret, err := ResourceHash(&d.Resources[i], res, "")
		if err != nil || secret {
			t.Fatalf("%s: %v secret %v", d.Resources[i].ID, err, secret)
		}
		if got != want {
			t.Errorf("%s: hash %s, want %s", d.Resources[i].ID, got, want)
		}
	}
}

// The hashes of TestResourceHashStable's file and directory, as the walk
// alone made them.
const (
	wantStableF = "fe19c551ce2438c97b32afc038fe2578151b1b6e251f1c8587ed4c01740cbcf1"
	wantStableD = "e7d2535dfa0dd6f9d53d69292efeb6202168855325ed48f58b796d519054925b"
)

func TestResourceHash(t *testing.T) {
	decl := func(mask bool) *declaration.Declaration {
		var d declaration.Declaration
		doc := `{"format":"zap.declaration/1","target":{"local":true},"resources":[
			{"id":"s","type":"script","check":"true","run":{"$text":["echo ",{"$env":"V"}]},"env":{"T":{"$env":"TAG"}}},
			{"id":"f","type":"file","name":"N","depends_on":["s"],"path":"~/f","content":{"type":"inline","content":"x"}}]`
		if mask {
			doc += `,"mask":["TAG"]`
		}
		doc += `}`
		if err := json.Unmarshal([]byte(doc), &d); err != nil {
			t.Fatal(err)
		}
		return &d
	}
	hash := func(d *declaration.Declaration, i int, env map[string]string) (string, bool) {
		res := Resolve(d, func(n string) (string, bool) { v, ok := env[n]; return v, ok })
		h, secret, err := ResourceHash(&d.Resources[i], res, "")
		if err != nil {
			t.Fatal(err)
		}
		return h, secret
	}
	d := decl(true)
	base, secret := hash(d, 0, map[string]string{"V": "1", "TAG": "t0"})
	if !secret || len(base) != 64 {
		t.Fatalf("hash %q secret %v", base, secret)
	}
	if h, _ := hash(d, 0, map[string]string{"V": "2", "TAG": "t0"}); h == base {
		t.Error("a plain value's change left the hash alone")
	}
	if h, _ := hash(d, 0, map[string]string{"V": "1", "TAG": "t1"}); h != base {
		t.Error("a secret's value moved the hash")
	}
	// Unmasked, the same variable is hashed by value.
	u := decl(false)
	h1, s1 := hash(u, 0, map[string]string{"V": "1", "TAG": "t0"})
	h2, _ := hash(u, 0, map[string]string{"V": "1", "TAG": "t1"})
	if s1 || h1 == h2 {
		t.Error("a plain TAG isn't hashed by value")
	}
	// id, name and depends_on are not part of it.
	f1, _ := hash(d, 1, nil)
	d.Resources[1].ID, d.Resources[1].Name, d.Resources[1].DependsOn = "g", "", nil
	if f2, _ := hash(d, 1, nil); f1 != f2 {
		t.Error("id, name or depends_on moved the hash")
	}
	*declaration.BodyOf[*declaration.File](&d.Resources[1]).Content.Inline = "y"
	if f3, _ := hash(d, 1, nil); f3 == f1 {
		t.Error("content didn't move the hash")
	}
}

// TestResourceHashCredentialAndPin: a fetching resource's credential is left
// out of the hash (two credentials, plain or secret, or none, hash the
// same), a tracked pin is folded in (no pin and a pin differ, two pins
// differ), and the quick way and the walk give the same hash with a pin.
func TestResourceHashCredentialAndPin(t *testing.T) {
	var d declaration.Declaration
	if err := json.Unmarshal([]byte(`{"format":"zap.declaration/1","target":{"local":true},"resources":[
		{"id":"a","type":"file","path":"/opt/a","content":{"type":"remote","url":"https://example.com/a.tgz","auth":{"$env":"TOKEN_A"}}},
		{"id":"b","type":"file","path":"/opt/a","content":{"type":"remote","url":"https://example.com/a.tgz","auth":{"$env":"TOKEN_B"}}},
		{"id":"c","type":"file","path":"/opt/a","content":{"type":"remote","url":"https://example.com/a.tgz"}},
		{"id":"d","type":"file","path":"/opt/a","content":{"type":"remote","url":"https://example.com/a.tgz","auth":"literal"}},
		{"id":"e","type":"build","run":"make","output":"/usr/local/bin/x","source":{"type":"remote","url":"https://example.com/x.tgz","auth":{"$env":"TOKEN_A"}}},
		{"id":"f","type":"build","run":"make","output":"/usr/local/bin/x","source":{"type":"remote","url":"https://example.com/x.tgz"}}],
		"mask":["TOKEN_A"]}`), &d); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TOKEN_A": "s3cret-token-a", "TOKEN_B": "plain-token-b"}
	res := Resolve(&d, func(n string) (string, bool) { v, ok := env[n]; return v, ok })
	h := NewHasher(res)
	hash := func(i int, pin string) (string, bool) {
		t.Helper()
		got, secret, err := h.Hash(&d.Resources[i], pin)
		if err != nil {
			t.Fatal(err)
		}
		return got, secret
	}
	a, secret := hash(0, "")
	if secret {
		t.Error("a secret credential, left out, still marks the hash secret")
	}
	for _, i := range []int{1, 2, 3} {
		if got, _ := hash(i, ""); got != a {
			t.Errorf("%s: the credential moved the hash: %s, want %s", d.Resources[i].ID, got, a)
		}
	}
	if e, _ := hash(4, ""); e != func() string { f, _ := hash(5, ""); return f }() {
		t.Error("a build's source.auth moved the hash")
	}
	if declaration.BodyOf[*declaration.File](&d.Resources[0]) == nil || declaration.BodyOf[*declaration.File](&d.Resources[0]).Content.Auth == nil {
		t.Fatal("hashing took the credential out of the declaration itself")
	}
	pin1 := strings.Repeat("1", 64)
	pin2 := strings.Repeat("2", 64)
	p1, _ := hash(0, pin1)
	p2, _ := hash(0, pin2)
	if p1 == a || p2 == a {
		t.Error("a pin left the hash as with no pin")
	}
	if p1 == p2 {
		t.Error("moving the pin left the hash alone")
	}
	if b1, _ := hash(1, pin1); b1 != p1 {
		t.Error("with a pin, the credential moved the hash")
	}
	// The same resource and pin through a resolution with no secret value
	// (the quick way) and one with (the walk) hash the same.
	plainRes := Resolve(&d, func(string) (string, bool) { return "", false })
	ph := NewHasher(plainRes)
	if !ph.plain || h.plain {
		t.Fatalf("plain %v and %v, want true and false", ph.plain, h.plain)
	}
	for _, i := range []int{2, 5} {
		for _, pin := range []string{"", pin1} {
			quick, _, err := ph.Hash(&d.Resources[i], pin)
			if err != nil {
				t.Fatal(err)
			}
			walked, _, err := h.Hash(&d.Resources[i], pin)
			if err != nil {
				t.Fatal(err)
			}
			if quick != walked {
				t.Errorf("%s pin %q: quick %s, walk %s", d.Resources[i].ID, pin, quick, walked)
			}
		}
	}
}

// TestTargetHashFollowsEveryField: the target's hash moves with each of its
// fields and with a plain reference's value, and not with a secret's value
// (a secret user is hashed as its token, and reported as secret).
func TestTargetHashFollowsEveryField(t *testing.T) {
	read := func(target string) *declaration.Declaration {
		var d declaration.Declaration
		if err := json.Unmarshal([]byte(`{"format":"zap.declaration/1","target":`+target+`,"resources":[],"mask":["SECRET_USER"]}`), &d); err != nil {
			t.Fatal(err)
		}
		return &d
	}
	hash := func(d *declaration.Declaration, env map[string]string) (string, bool) {
		res := Resolve(d, func(n string) (string, bool) { v, ok := env[n]; return v, ok })
		h, secret, err := NewHasher(res).TargetHash(&d.Target)
		if err != nil {
			t.Fatal(err)
		}
		return h, secret
	}
	base := `{"host":"h","user":{"$env":"U"},"home":"/home/u","package_manager":"apt","port":22}`
	env := map[string]string{"U": "u"}
	b, secret := hash(read(base), env)
	if secret || len(b) != 64 {
		t.Fatalf("hash %q secret %v", b, secret)
	}
	if again, _ := hash(read(base), env); again != b {
		t.Fatal("the same target hashed twice differs")
	}
	for _, other := range []string{
		`{"host":"h2","user":{"$env":"U"},"home":"/home/u","package_manager":"apt","port":22}`,
		`{"host":"h","user":{"$env":"U"},"home":"/home/v","package_manager":"apt","port":22}`,
		`{"host":"h","user":{"$env":"U"},"home":"/home/u","package_manager":"apk","port":22}`,
		`{"host":"h","user":{"$env":"U"},"home":"/home/u","package_manager":"apt","port":2222}`,
		`{"host":"h","user":{"$env":"U"},"home":"/home/u","package_manager":"apt"}`,
	} {
		if h, _ := hash(read(other), env); h == b {
			t.Errorf("%s hashes as %s", other, base)
		}
	}
	if h, _ := hash(read(base), map[string]string{"U": "v"}); h == b {
		t.Error("a plain reference's value didn't move the hash")
	}
	sec := `{"host":"h","user":{"$env":"SECRET_USER"}}`
	s1, secret := hash(read(sec), map[string]string{"SECRET_USER": "a"})
	s2, _ := hash(read(sec), map[string]string{"SECRET_USER": "b"})
	if !secret || s1 != s2 {
		t.Errorf("a secret user: secret %v, and its value moved the hash: %v", secret, s1 != s2)
	}
}
