package fetch

import (
	"net"
	"net/url"
	"testing"
)

func TestCheckURL(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]error{
		"https://example.com/a.tar.gz":     nil,
		"HTTPS://Example.COM:8443/a":       nil,
		"https://[2001:db8::1]/a":          nil,
		"http://127.0.0.1:8080/a":          nil,
		"http://127.200.0.9/a":             nil,
		"http://[::1]:8080/a":              nil,
		"http://localhost:8080/a":          nil,
		"http://LOCALHOST/a":               nil,
		"http://example.com/a":             errPlainHTTP,
		"http://localhost./a":              errPlainHTTP,
		"http://127.1/a":                   errPlainHTTP,
		"http://[::1%25lo]/a":              errPlainHTTP,
		"http://10.0.0.1/a":                errPlainHTTP,
		"ftp://example.com/a":              errScheme,
		"file:///etc/passwd":               errScheme,
		"example.com/a":                    errScheme,
		"https:example.com":                errNoHost,
		"https:///a":                       errNoHost,
		"https://user:pass@example.com/a":  errUser,
		"https://user@example.com/a":       errUser,
		"https://example.com:0/a":          errPort,
		"https://example.com:65536/a":      errPort,
		"https://exa mple.com/a":           errNoParse,
		"https://example.com/a\x7f":        errNoParse,
		"https://example.com:443/a?q#frag": nil,
	} {
		if err := CheckURL(raw); err != want {
			t.Errorf("CheckURL(%q) = %v, want %v", raw, err, want)
		}
	}
}

func TestOriginComparesSpellings(t *testing.T) {
	t.Parallel()
	o := func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return origin(u)
	}
	for a, b := range map[string]string{
		"https://example.com/a":     "https://EXAMPLE.com:443/b?c",
		"http://localhost/a":        "http://localhost:80/",
		"https://[::1]:08443/":      "https://[::1]:8443/x",
		"https://example.com:8443/": "https://example.com:8443",
	} {
		if o(a) != o(b) {
			t.Errorf("origin(%s) = %s, origin(%s) = %s", a, o(a), b, o(b))
		}
	}
	for a, b := range map[string]string{
		"https://example.com/":  "http://example.com/",
		"https://example.com/ ": "https://example.com:8443/",
		"https://example.com":   "https://www.example.com",
	} {
		if o(a) == o(b) {
			t.Errorf("origin(%s) = origin(%s) = %s", a, b, o(a))
		}
	}
}

// FuzzCheckURL holds CheckURL to its rules on any input: a refusal is one
// of its fixed sentences (so it repeats nothing of the URL), and an
// accepted URL is https:// with a host, or http:// to a loopback host the
// dialer would connect to, with no user part, whose origin survives a
// round trip through its own spelling.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://example.com/a.tar.gz", "http://127.0.0.1:8080/a", "http://[::1]/", "http://localhost/",
		"http://example.com/", "https://u:p@example.com/", "ftp://x/", "https://example.com:99999/",
		"https://[fe80::1%25eth0]/", "http://[::ffff:127.0.0.1]/", "//example.com/", "https://%zz/",
	} {
		f.Add(s)
	}
	fixed := []error{errNoParse, errNoHost, errUser, errPort, errPlainHTTP, errScheme}
	f.Fuzz(func(t *testing.T, raw string) {
		err := CheckURL(raw)
		if err != nil {
			for _, e := range fixed {
				if err == e {
					return
				}
			}
			t.Fatalf("CheckURL(%q) = %v, not one of the fixed refusals", raw, err)
		}
		u, perr := url.Parse(raw)
		if perr != nil {
			t.Fatalf("accepted %q, which doesn't parse: %v", raw, perr)
		}
		if u.User != nil || u.Hostname() == "" {
			t.Fatalf("accepted %q with a user part or no host", raw)
		}
		switch u.Scheme {
		case "https":
		case "http":
			if !LoopbackHost(u.Hostname()) {
				t.Fatalf("accepted plain %q off loopback", raw)
			}
			if ip := net.ParseIP(u.Hostname()); ip != nil {
				if err := loopbackOnly("tcp", net.JoinHostPort(ip.String(), "80"), nil); err != nil {
					t.Fatalf("accepted %q, whose address the dialer refuses: %v", raw, err)
				}
			}
		default:
			t.Fatalf("accepted %q, scheme %q", raw, u.Scheme)
		}
		again, err := url.Parse(u.String())
		if err != nil {
			t.Fatalf("%q respelled as %q doesn't parse: %v", raw, u.String(), err)
		}
		if origin(again) != origin(u) || CheckURL(u.String()) != nil {
			t.Fatalf("%q respelled as %q: origin %s, then %s; CheckURL %v", raw, u.String(), origin(u), origin(again), CheckURL(u.String()))
		}
	})
}
