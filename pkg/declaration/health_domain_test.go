package declaration

import "testing"

// TestHealthDomainTakesAPort: deploy.health.domain is a host name, alone or
// with a port of 1 to 65535; anything else is refused at validation,
// naming the field and the form it takes.
func TestHealthDomainTakesAPort(t *testing.T) {
	for _, s := range []string{"app.example.net", "app.example.net:8443", "127.0.0.1:1", "localhost:65535"} {
		if !IsHealthDomain(s) {
			t.Errorf("%q is refused", s)
		}
	}
	for _, s := range []string{"", ":8443", "app:", "app:0", "app:08443", "app:65536", "app:123456", "app:84a", "app:+1", "app:1:2", "[::1]:8443", "a/b:1", "user@app:1"} {
		if IsHealthDomain(s) {
			t.Errorf("%q is taken", s)
		}
	}
	for domain, want := range map[string]string{
		"app.example.net:8443": "",
		"app.example.net:0":    `deploy.health.domain: "app.example.net:0" is not a host name, or a host name and a port (app.example.net:8443)`,
	} {
		d, err := Read([]byte(`{"format":"zap.declaration/1","target":{"host":"h"},"resources":[],"deploy":{"path":"/a","artifacts":["b"],"health":{"domain":"` + domain + `"}}}`))
		if err == nil {
			err = d.Validate()
		}
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", domain, got, want)
		}
	}
}
