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
