package pass

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

func TestBadValues(t *testing.T) {
	d, err := declaration.Read(canonical(t, `{"format":"zap.declaration/1","target":{"local":true},"resources":[
{"id":"s","type":"script","check":"test -e /x","run":{"$text":["echo '",{"$env":"Q"},"'"]},"env":{"E":{"$env":"D"}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"Q": "it's", "D": "a\uFDD0b"}
	res := resolve.Resolve(d, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	p := &plan.Plan{Changes: []plan.Change{{ID: "s", Resource: d.Resources[0]}}}
	bad := BadValues(p, res)
	if len(bad) != 2 || bad[0].String() != "resource s: run: the value of Q holds a single quote, which Zap refuses in a command" ||
		bad[1].Field != "env.E" {
		t.Fatalf("bad values %v", bad)
	}
	env["Q"] = "fine"
	env["D"] = "it's fine in env"
	res = resolve.Resolve(d, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if bad := BadValues(p, res); len(bad) != 0 {
		t.Fatalf("bad values %v", bad)
	}
}

func TestBadURLs(t *testing.T) {
	d, err := declaration.Read(canonical(t, `{"format":"zap.declaration/1","target":{"local":true},"resources":[
{"id":"f","type":"file","path":"/x","content":{"type":"remote","url":{"$text":[{"$env":"M"},"/tool"]}}},
{"id":"b","type":"build","source":{"type":"remote","url":{"$text":["https://",{"$env":"H"},"/z.tar.xz"]},"verify":{"scheme":"minisign","public_key":"RWSGOq2NVecA2UPNdBUZykf1CCb147pkmdtYxgb3Ti+JO/wCYvhbAb/U","signature_url":{"$env":"S"}}},"run":"make","output":"/o"},
{"id":"k","type":"apt_repo","key_url":{"$env":"K"},"source":"deb https://x.example/d $VERSION_CODENAME main"},
{"id":"u","type":"file","path":"/y","content":{"type":"remote","url":{"$text":[{"$env":"UNSET"},"/z"]}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"M": "https://ops:pw-canary@127.0.0.1:1/m", "H": "example.org", "S": "http://192.0.2.1/z.minisig", "K": "file:///etc/key"}
	res := resolve.Resolve(d, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	bad := BadURLs(d, res)
	want := []string{
		"resource f: content.url: {env:M}/tool resolves to a URL Zap doesn't fetch: refused: the URL carries user:password@ (a credential goes in auth)",
		"resource b: source.verify.signature_url: {env:S} resolves to a URL Zap doesn't fetch: refused: http:// is fetched only from a loopback host (localhost, 127.0.0.0/8, [::1]); use https://",
		"resource k: key_url: {env:K} resolves to a URL Zap doesn't fetch: refused: only https:// is fetched (http:// only from a loopback host)",
	}
	if strings.Join(bad, "\n") != strings.Join(want, "\n") {
		t.Fatalf("bad URLs:\n%s\nwant:\n%s", strings.Join(bad, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(strings.Join(bad, ""), "pw-canary") {
		t.Fatal("a bad URL's message holds the password")
	}
	env = map[string]string{"M": "http://127.0.0.1:8080", "H": "example.org", "S": "https://example.org/z.minisig", "K": "https://example.org/k"}
	res = resolve.Resolve(d, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if bad := BadURLs(d, res); len(bad) != 0 {
		t.Fatalf("bad URLs %v", bad)
	}
}
