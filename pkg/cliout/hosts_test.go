package cliout

import (
	"strings"
	"testing"
)

// TestReadHostLine: a zap.hosts/1 line is read strictly: a host's line, a
// host's wait or the summary, each field where it belongs and no other.
func TestReadHostLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		bad  string // "" reads
	}{
		{`{"format":"zap.hosts/1","host":"hosts/a","line":{"event":"run_ok","ok":1}}`, ""},
		{`{"format":"zap.hosts/1","host":"hosts/a","wait":"slot"}`, ""},
		{`{"format":"zap.hosts/1","host":"hosts/a","wait":"hosts"}`, ""},
		{`{"format":"zap.hosts/1","summary":{"exit":0,"hosts":[]}}`, ""},
		{`{"format":"zap.hosts/1","host":"hosts/a","wait":"lock"}`, `wait "lock" is neither`},
		{`{"format":"zap.hosts/1","host":"hosts/a","line":{},"wait":"slot"}`, "a line or a wait, one of them"},
		{`{"format":"zap.hosts/1","host":"hosts/a"}`, "a line or a wait, one of them"},
		{`{"format":"zap.hosts/1","wait":"slot"}`, "names its host"},
		{`{"format":"zap.hosts/1","line":{}}`, "names its host"},
		{`{"format":"zap.hosts/1","host":"hosts/a","summary":{"exit":0,"hosts":[]}}`, "a summary names no host"},
		{`{"format":"zap.hosts/1","summary":{"exit":0,"hosts":[]},"wait":"slot"}`, "a summary names no host"},
		{`{"format":"zap.hosts/1","host":"hosts/a","wait":"slot","when":1}`, "when"},
		{`{"format":"zap.hosts/2","host":"hosts/a","wait":"slot"}`, "zap.hosts/2"},
	} {
		l, err := ReadHostLine([]byte(tc.line))
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("%s: %v", tc.line, err)
		case tc.bad == "" && l == nil:
			t.Errorf("%s: no line read", tc.line)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("%s: error %v, want one saying %q", tc.line, err, tc.bad)
		}
	}
}
