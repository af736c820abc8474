package fetch

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// minisignKey is a throwaway key pair made by the real minisign binary in
// dir: the secret key's path and the public key line.
func minisignKey(t *testing.T, bin, dir string) (sec, pub string) {
	t.Helper()
	sec, pubFile := filepath.Join(dir, "k.sec"), filepath.Join(dir, "k.pub")
	if out, err := exec.Command(bin, "-G", "-W", "-p", pubFile, "-s", sec).CombinedOutput(); err != nil {
		t.Fatalf("minisign -G: %v: %s", err, out)
	}
	b, err := os.ReadFile(pubFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return sec, lines[len(lines)-1]
}

// minisignSign signs body with the secret key sec, by the real binary.
func minisignSign(t *testing.T, bin, sec, body string) string {
	t.Helper()
	dir := t.TempDir()
	f := filepath.Join(dir, "file")
	if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-S", "-s", sec, "-m", f).CombinedOutput(); err != nil {
		t.Fatalf("minisign -S: %v: %s", err, out)
	}
	sig, err := os.ReadFile(f + ".minisig")
	if err != nil {
		t.Fatal(err)
	}
	return string(sig)
}

// realMinisign is the machine's minisign binary, found by Zap's own rules;
// the test is skipped, saying why, without one.
func realMinisign(t *testing.T) *Minisign {
	t.Helper()
	m, err := FindMinisign(os.Getenv)
	if err != nil {
		t.Skipf("needs a minisign binary Zap trusts (Debian's minisign package; .ci/run installs it): %v", err)
	}
	return m
}

func TestSignatureURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://x.org/a.tar.gz":                 "https://x.org/a.tar.gz.minisig",
		"https://x.org/a.tar.gz?v=1":             "https://x.org/a.tar.gz.minisig?v=1",
		"https://x.org/a.tar.gz#frag":            "https://x.org/a.tar.gz.minisig#frag",
		"https://x.org/a?x=1#f":                  "https://x.org/a.minisig?x=1#f",
		"https://x.org/{env:VERSION}/z.tar.xz":   "https://x.org/{env:VERSION}/z.tar.xz.minisig",
		"https://x.org/z.tar.xz?token={env:TOK}": "https://x.org/z.tar.xz.minisig?token={env:TOK}",
	} {
		if got := SignatureURL(in); got != want {
			t.Errorf("SignatureURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSignatureRequestAuthOnlyToTheSourceOrigin: the source's credential
// goes with its signature's request only on the source's origin.
func TestSignatureRequestAuthOnlyToTheSourceOrigin(t *testing.T) {
	t.Parallel()
	src := Request{Declared: "https://x.org/a.tgz", URL: "https://x.org/a.tgz", Bearer: canaryBearer}
	cases := []struct {
		name, sig string
		bearer    bool
	}{
		{"default", "", true},
		{"same origin, another path", "https://x.org/sigs/a.minisig", true},
		{"explicit default port", "https://x.org:443/a.minisig", true},
		{"another host", "https://sigs.x.org/a.minisig", false},
		{"another port", "https://x.org:8443/a.minisig", false},
		{"another scheme", "http://x.org/a.minisig", false},
	}
	for _, c := range cases {
		r := SignatureRequest(src, c.sig, c.sig)
		if (r.Bearer != "") != c.bearer {
			t.Errorf("%s: bearer sent %v, want %v", c.name, r.Bearer != "", c.bearer)
		}
		if r.Limit != SignatureLimit {
			t.Errorf("%s: limit %d", c.name, r.Limit)
		}
	}
	if r := SignatureRequest(src, "", ""); r.URL != "https://x.org/a.tgz.minisig" || r.Declared != "https://x.org/a.tgz.minisig" {
		t.Errorf("default signature request: %+v", r)
	}
}

// TestMinisignCheckBeforeCaching fetches a source verified by the real
// minisign binary: a good signature caches it, a tampered one or a
// signature by another key caches nothing and names the binary, and a
// cache hit fetches no signature.
func TestMinisignCheckBeforeCaching(t *testing.T) {
	t.Parallel()
	m := realMinisign(t)
	body := "source archive bytes\n"
	sec, pub := minisignKey(t, m.Path, t.TempDir())
	otherSec, _ := minisignKey(t, m.Path, t.TempDir())
	good := minisignSign(t, m.Path, sec, body)
	byOther := minisignSign(t, m.Path, otherSec, body)
	tampered := minisignSign(t, m.Path, sec, body+"x")
	for _, c := range []struct {
		name, sig string
		ok        bool
	}{
		{"good", good, true},
		{"tampered", tampered, false},
		{"another key", byOther, false},
		{"not a signature", "hello\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, false, func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, ".minisig") {
					w.Write([]byte(c.sig))
					return
				}
				w.Write([]byte(body))
			})
			f, cache := newFetcher(t, nil, Options{})
			src := Request{Declared: s.URL + "/a.tar.gz", URL: s.URL + "/a.tar.gz", Pin: sum(body)}
			src = f.Verified(context.Background(), src, pub, "", "", func() (*Minisign, error) { return m, nil })
			e, err := f.Fetch(context.Background(), src)
			if !c.ok {
				msg := errText(t, err)
				if !errors.Is(err, ErrMinisign) || !strings.Contains(msg, m.Path) {
					t.Errorf("error %q: want a minisign failure naming %s", msg, m.Path)
				}
				if n := entries(t, cache); len(n) != 0 {
					t.Errorf("cached %v after a failed verification", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := readEntry(t, e); got != body {
				t.Errorf("entry %q", got)
			}
			hits, _ := s.seen()
			if hits != 2 {
				t.Errorf("%d requests, want the source and its signature", hits)
			}
			// A cache hit runs no check: it needs no minisign binary.
			src = f.Verified(context.Background(), src, pub, "", "", func() (*Minisign, error) { return nil, errors.New("no minisign here") })
			e, err = f.Fetch(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			e.Close()
			if again, _ := s.seen(); again != hits {
				t.Errorf("a cache hit made %d more requests", again-hits)
			}
		})
	}
}

// TestMinisignSignatureNotServed: a signature that isn't there fails the
// check, naming the signature's URL as declared; nothing is cached.
func TestMinisignSignatureNotServed(t *testing.T) {
	t.Parallel()
	m := realMinisign(t)
	_, pub := minisignKey(t, m.Path, t.TempDir())
	body := "bytes"
	s := newServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".minisig") {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(body))
	})
	f, cache := newFetcher(t, nil, Options{})
	src := Request{Declared: s.URL + "/a.tgz", URL: s.URL + "/a.tgz", Pin: sum(body)}
	src.Check = f.MinisignCheck(context.Background(), m, pub, SignatureRequest(src, "", ""))
	_, err := f.Fetch(context.Background(), src)
	if msg := errText(t, err); !strings.Contains(msg, "/a.tgz.minisig") || !strings.Contains(msg, "404") {
		t.Errorf("error %q: want the signature's URL and its 404", msg)
	}
	if n := entries(t, cache); len(n) != 0 {
		t.Errorf("cached %v", n)
	}
}

// TestFindMinisignRules: ZAP_MINISIGN first and only when absolute; PATH's
// absolute directories; and the refusals, each naming the path.
func TestFindMinisignRules(t *testing.T) {
	t.Parallel()
	real := realMinisign(t).Path
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	base := trustedTempDir(t)
	link := func(dir string) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "minisign")
		if err := os.Symlink(real, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := link(filepath.Join(base, "good"))
	if m, err := FindMinisign(env(map[string]string{"ZAP_MINISIGN": good, "PATH": "/nowhere"})); err != nil || m.Path != good {
		t.Errorf("ZAP_MINISIGN %s: %v, %v", good, m, err)
	}
	if m, err := FindMinisign(env(map[string]string{"PATH": "relative:" + filepath.Dir(good)})); err != nil || m.Path != good {
		t.Errorf("PATH: %v, %v", m, err)
	}
	if _, err := FindMinisign(env(map[string]string{"ZAP_MINISIGN": "bin/minisign"})); err == nil || !strings.Contains(err.Error(), "not an absolute path") {
		t.Errorf("relative ZAP_MINISIGN: %v", err)
	}
	if _, err := FindMinisign(env(map[string]string{"PATH": "relative"})); err == nil {
		t.Error("a minisign only in a relative PATH entry was found")
	}
	nm := link(filepath.Join(base, "node_modules", ".bin"))
	wide := filepath.Join(base, "wide")
	wideBin := link(filepath.Join(wide, "bin"))
	if err := os.Chmod(wide, 0o777); err != nil {
		t.Fatal(err)
	}
	groupDir := filepath.Join(base, "group")
	groupBin := link(groupDir)
	if err := os.Chmod(groupDir, 0o775); err != nil {
		t.Fatal(err)
	}
	// A link whose target's directory is one others can write.
	via := filepath.Join(base, "via")
	if err := os.MkdirAll(via, 0o755); err != nil {
		t.Fatal(err)
	}
	viaBin := filepath.Join(via, "minisign")
	if err := os.Symlink(wideBin, viaBin); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, why string }{
		{nm, "node_modules"},
		{wideBin, "writable by its group or by others"},
		{groupBin, "writable by its group or by others"},
		{viaBin, "writable by its group or by others"},
		{filepath.Join(base, "missing", "minisign"), "no such file"},
	} {
		_, err := FindMinisign(env(map[string]string{"ZAP_MINISIGN": c.path}))
		if err == nil || !errors.Is(err, ErrMinisign) || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, want a refusal naming it and %q", c.path, err, c.why)
		}
	}
	if os.Geteuid() == 0 {
		other := link(filepath.Join(base, "other"))
		if err := os.Lchown(filepath.Dir(other), 4242, 4242); err != nil {
			t.Fatal(err)
		}
		_, err := FindMinisign(env(map[string]string{"ZAP_MINISIGN": other}))
		if err == nil || !strings.Contains(err.Error(), "owned by uid 4242") {
			t.Errorf("a directory of another account's: %v", err)
		}
	}
}

// trustedTempDir is a new directory of the test's (removed at its end)
// that the trust walk passes: /tmp is writable by everyone, so it is made
// in HOME, else under /run or /var/cache.
func trustedTempDir(t *testing.T) string {
	t.Helper()
	var why []string
	for _, parent := range []string{os.Getenv("HOME"), "/run", "/var/cache"} {
		if parent == "" {
			continue
		}
		w := &trustWalk{uid: uint32(os.Geteuid()), seen: map[string]bool{}}
		if err := w.walk(parent); err != nil {
			why = append(why, err.Error())
			continue
		}
		dir, err := os.MkdirTemp(parent, "zap-minisign-test-")
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	t.Skipf("no directory here passes the trust walk to hold the test's minisign links: %s", strings.Join(why, "; "))
	return ""
}
