package resolve

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
)

func TestSecretAsksTheRule(t *testing.T) {
	d := &declaration.Declaration{Mask: []string{"GREETING"}, Unmask: []string{"DB_PASS"}}
	for _, c := range []struct {
		name, value string
		want        bool
	}{
		{"GREETING", "hello", true},
		{"DB_PASS", "hunter2", false},
		{"SMTP_PASS", "hunter2", true},
		{"ENABLE_AUTH", "true", false},
		{"DATABASE_URL", "postgres://app:pw@db/app", true},
		{"APP_DIR", "/srv/app", false},
	} {
		if got := Secret(d, c.name, c.value); got != c.want {
			t.Errorf("Secret(%s=%q) = %v, want %v", c.name, c.value, got, c.want)
		}
	}
}

// TestResolveUnsetCredentialIsNotCompared: a variable only a fetch
// credential references, unset, is unresolved (a wetrun needs it) but not
// among those the comparison resolves; one also used in a compared field
// is.
func TestResolveUnsetCredentialIsNotCompared(t *testing.T) {
	d, err := declaration.Read([]byte(`{"format": "` + declaration.Format + `", "target": {"local": true}, "resources": [
		{"id": "a", "type": "file", "path": "/a", "content": {"type": "remote", "url": "https://h.example/a", "auth": {"$env": "TOK"},
			"blake3": "853bd2ecc2e9cfa7c54b694dfa5afc17610542e08965d1427ac2bbfc66db0ed0"}},
		{"id": "b", "type": "file", "path": {"$text": ["/b/", {"$env": "BOTH"}]}, "content": {"type": "remote", "url": "https://h.example/b", "auth": {"$env": "BOTH"},
			"blake3": "853bd2ecc2e9cfa7c54b694dfa5afc17610542e08965d1427ac2bbfc66db0ed0"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res := Resolve(d, func(string) (string, bool) { return "", false })
	if got := strings.Join(res.Unresolved, ","); got != "BOTH,TOK" {
		t.Errorf("Unresolved = %s, want BOTH,TOK", got)
	}
	if got := strings.Join(res.UnresolvedCompared, ","); got != "BOTH" {
		t.Errorf("UnresolvedCompared = %s, want BOTH", got)
	}
}

// TestResolveRefusesNotUTF8: a referenced variable whose value isn't
// UTF-8 is refused by name, its value in no message.
func TestResolveRefusesNotUTF8(t *testing.T) {
	d, err := declaration.Read([]byte(`{"format": "` + declaration.Format + `", "target": {"local": true}, "resources": [
		{"id": "a", "type": "directory", "path": {"$text": ["/", {"$env": "GOOD"}, {"$env": "BAD"}]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GOOD": "café", "BAD": "x-canary-\xff"}
	res := Resolve(d, func(n string) (string, bool) { v, ok := env[n]; return v, ok })
	err = res.CheckUTF8()
	if err == nil || err.Error() != "the referenced variable BAD isn't valid UTF-8, so no plan can record or show its value" {
		t.Fatalf("CheckUTF8 = %v", err)
	}
	delete(env, "BAD")
	if err := Resolve(d, func(n string) (string, bool) { v, ok := env[n]; return v, ok }).CheckUTF8(); err != nil {
		t.Fatalf("CheckUTF8 of UTF-8 values = %v", err)
	}
}
