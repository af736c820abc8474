package declaration

import (
	"fmt"
	"maps"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

var blake3Pattern = newPattern(`^[0-9a-f]{64}$`)

// checkURL holds a URL to https:// with a host and no user:password@;
// loopback allows http:// for a loopback host. A URL that holds a reference
// is checked as far as its literal start goes, and again once it resolves.
func checkURL(t Text, loopback bool) error {
	if t.IsZero() {
		return fmt.Errorf("is blank")
	}
	if err := oneLine(t.String()); err != nil {
		return err
	}
	s, plain := t.Plain()
	if !plain {
		first := t.Parts()[0]
		if first.Env != "" {
			return nil
		}
		scheme, _, ok := strings.Cut(first.Lit, "://")
		if ok && scheme != "https" && !(loopback && scheme == "http") {
			return fmt.Errorf("want an https:// URL, not %s://", scheme)
		}
		return nil
	}
	return CheckURLValue(s, loopback)
}

// CheckURLValue checks a URL as written or once resolved.
func CheckURLValue(s string, loopback bool) error {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return fmt.Errorf("%q is not a URL: want https://host/path", s)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && loopback:
		if !loopbackHost(u.Hostname()) {
			return fmt.Errorf("http:// is accepted only for a loopback host (localhost, 127.0.0.0/8, [::1]); use https://")
		}
	default:
		return fmt.Errorf("want an https:// URL, not %s://", u.Scheme)
	}
	if u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("%q has no host", s)
	}
	if u.User != nil {
		return fmt.Errorf("holds a user or password (user:password@); a credential goes in auth, as a reference")
	}
	return nil
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.Zone() == "" && ip.IsLoopback()
}

func checkBlake3(pin string) error {
	if pin != "" && !blake3Pattern.MatchString(pin) {
		return fmt.Errorf("%q is not a blake3 pin: 64 lowercase hex digits", pin)
	}
	return nil
}

func checkAbs(p string) error {
	if p == "" {
		return fmt.Errorf("is blank")
	}
	if err := oneLine(p); err != nil {
		return err
	}
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("%q must be an absolute path", p)
	}
	return nil
}

func checkEnv(env map[string]Text, field string) *fieldMsg {
	names := slices.Sorted(maps.Keys(env))
	for _, name := range names {
		if !ValidEnvName(name) {
			return &fieldMsg{field, fmt.Sprintf("%q is not an environment variable name", name)}
		}
		if strings.HasPrefix(name, "__zap_") {
			return &fieldMsg{field + "." + name, "a name can't begin with __zap_"}
		}
		if strings.ContainsRune(env[name].String(), 0) {
			return &fieldMsg{field + "." + name, "holds a NUL byte"}
		}
	}
	return nil
}

func checkExtract(e *Extract) *fieldMsg {
	if e == nil {
		return nil
	}
	if e.StripComponents != nil {
		if e.Type == ExtractNone {
			return &fieldMsg{"extract.strip_components", "strip_components goes with a tar extract, not none"}
		}
		if *e.StripComponents < 0 {
			return &fieldMsg{"extract.strip_components", "can't be negative"}
		}
	}
	return nil
}

// checkName requires a one-line, non-blank value not beginning with -.
func checkName(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("is blank")
	}
	if err := oneLine(s); err != nil {
		return err
	}
	if strings.HasPrefix(s, "-") {
		return fmt.Errorf("begins with -")
	}
	return nil
}
