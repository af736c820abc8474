package ts_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestCertbotPreflightRuns runs the DNS preflight under each shell a target
// may have (dash, BusyBox ash) with getent on this machine. Names that are
// IP literals resolve to themselves with no resolver, so no network is
// needed: one resolving inside the expected set passes silently; one
// outside it, and an expected address that isn't an IP literal, refuse
// with exit 1 and a reason each on stderr.
func TestCertbotPreflightRuns(t *testing.T) {
	if _, err := exec.LookPath("getent"); err != nil {
		t.Skip("no getent on this machine to resolve with")
	}
	m := load(t, "recipes/certbot.ts")
	shells := [][]string{{"sh"}}
	if _, err := exec.LookPath("busybox"); err == nil {
		shells = append(shells, []string{"busybox", "sh"})
	} else {
		t.Log("no busybox: the preflight runs under sh alone")
	}
	for _, c := range []struct {
		names, expected string
		code            int
		want            []string
	}{
		{`['127.0.0.1']`, `['127.0.0.1', '192.0.2.1']`, 0, nil},
		{`['127.0.0.1', '127.0.0.2']`, `['127.0.0.1']`, 1, []string{
			"certbot preflight: 127.0.0.2 resolves to 127.0.0.2, which isn't in expected_addresses",
			"certbot preflight: refused: nothing was stopped and certbot did not run",
		}},
		{`['127.0.0.1']`, `['127.0.0.1', 'host.example']`, 1, []string{
			"certbot preflight: expected address 'host.example' is not an IP literal: declare expected_addresses",
		}},
	} {
		script := m.str(t, "certbot_dns_preflight", m.js(t, c.names), m.js(t, c.expected))
		for _, sh := range shells {
			cmd := exec.Command(sh[0], append(sh[1:], "-c", script)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("%v: %v", sh, err)
			}
			if code != c.code {
				t.Errorf("%v, names %s, expected %s: exit %d, want %d (stderr %q)", sh, c.names, c.expected, code, c.code, stderr.String())
			}
			for _, w := range c.want {
				if !strings.Contains(stderr.String(), w+"\n") {
					t.Errorf("%v, names %s, expected %s: stderr %q lacks %q", sh, c.names, c.expected, stderr.String(), w)
				}
			}
			if c.want == nil && stderr.Len() > 0 {
				t.Errorf("%v, names %s: a pass printed %q", sh, c.names, stderr.String())
			}
		}
	}
}
