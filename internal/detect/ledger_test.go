package detect

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// TestLedgerVerdict: the probe's output parsed into markers, and every
// failure to read holds (the caller fails the plan on it).
func TestLedgerVerdict(t *testing.T) {
	cases := []struct {
		name    string
		a       Answer
		markers []observation.Marker
		unknown []string
		strays  int
		reason  string
	}{
		{name: "none", a: svcExit(0, "")},
		{name: "two", a: svcExit(0, "m web reload\nm api restart\n"), markers: []observation.Marker{{Service: "api", Action: "restart"}, {Service: "web", Action: "reload"}}},
		{name: "unknown content is a restart", a: svcExit(0, "m web unknown\n"), markers: []observation.Marker{{Service: "web", Action: "restart"}}, unknown: []string{"web"}},
		{name: "strays", a: svcExit(0, "x\nm web reload\nx\n"), markers: []observation.Marker{{Service: "web", Action: "reload"}}, strays: 2},
		{name: "link", a: svcExit(3, ""), reason: "/var/lib/zap/pending (or /var/lib/zap) is a symbolic link or not a directory"},
		{name: "unreadable", a: svcExit(4, ""), reason: "/var/lib/zap/pending or a marker in it couldn't be read as root"},
		{name: "other exit", a: svcExit(1, ""), reason: "the read of /var/lib/zap/pending exited 1"},
		{name: "odd line", a: svcExit(0, "m web reload extra\n"), reason: "the read of /var/lib/zap/pending printed a line Zap didn't expect"},
		{name: "odd name", a: svcExit(0, "m -web reload\n"), reason: "the read of /var/lib/zap/pending printed a line Zap didn't expect"},
		{name: "twice", a: svcExit(0, "m web reload\nm web reload\n"), reason: "the read of /var/lib/zap/pending printed a line Zap didn't expect"},
		{name: "odd action", a: svcExit(0, "m web stop\n"), reason: "the read of /var/lib/zap/pending printed a line Zap didn't expect"},
		{name: "sudo", a: Answer{Status: StatusSudoFailed}, reason: SudoFailed},
		{name: "timed out", a: timedOut, reason: "reading /var/lib/zap/pending timed out after 30s"},
		{name: "no status", a: Answer{Status: StatusFailed}, reason: "the read of /var/lib/zap/pending gave no exit status"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := &Ledger{}
			r := l.Verdict([]Answer{c.a})
			if c.reason != "" {
				if r.Verdict != observation.Undetermined || r.Reason != c.reason {
					t.Errorf("got %+v, want the hold %q", r, c.reason)
				}
				return
			}
			if r.Verdict != observation.Converged || !reflect.DeepEqual(l.Markers, c.markers) || !reflect.DeepEqual(l.Unknown, c.unknown) || l.Strays != c.strays {
				t.Errorf("got %+v %+v", r, l)
			}
		})
	}
	if q := (&Ledger{}).Queries(); len(q) != 1 || q[0].Lane != observation.LaneRoot || q[0].Op != OpProbe {
		t.Errorf("queries %+v", q)
	}
}

func TestLedgerWarnings(t *testing.T) {
	d := &declaration.Declaration{Resources: []declaration.Resource{
		{Common: declaration.Common{ID: "web", Type: declaration.KindService}, Body: &declaration.Service{Service: "nginx"}},
	}}
	l := &Ledger{Markers: []observation.Marker{{Service: "nginx", Action: "reload"}, {Service: "old", Action: "restart"}}, Unknown: []string{"nginx"}, Strays: 1}
	want := []string{
		"/var/lib/zap/pending/old owes old a restart, and this config doesn't manage that service: nothing here runs or clears it (remove the marker once the service is on its current config)",
		"/var/lib/zap/pending/nginx holds neither restart nor reload: it is owed as a restart",
		"/var/lib/zap/pending holds 1 entry that aren't markers Zap writes; they are ignored",
	}
	if got := l.Warnings(d); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
	if DeclaresTrigger(d) {
		t.Error("a service with no trigger declares one")
	}
	declaration.BodyOf[*declaration.Service](&d.Resources[0]).ReloadOn = []string{"x"}
	if !DeclaresTrigger(d) {
		t.Error("reload_on isn't a trigger")
	}
}

// shells are the shells the probes must work under: dash (sh on Debian),
// bash and BusyBox ash.
func shells(t *testing.T) [][]string {
	var out [][]string
	for _, s := range [][]string{{"dash"}, {"bash", "--posix"}, {"busybox", "ash"}} {
		if _, err := exec.LookPath(s[0]); err != nil {
			t.Logf("%s: not installed here, not tried", s[0])
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		t.Skip("no dash, bash or busybox on this machine")
	}
	return out
}

func runProbe(t *testing.T, shell []string, text string) (int, string) {
	t.Helper()
	cmd := exec.Command(shell[0], append(shell[1:], "-c", text)...)
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin"}
	out, err := cmd.Output()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	case err != nil:
		t.Fatal(err)
	}
	return 0, string(out)
}

// TestLedgerProbeShells runs the ledger's probe under each shell against a
// directory of the test's own standing in for /var/lib/zap (the text's
// path replaced): what it prints for markers, odd content, stray entries,
// a missing directory, a link and a file in its place.
func TestLedgerProbeShells(t *testing.T) {
	for _, sh := range shells(t) {
		t.Run(sh[0], func(t *testing.T) {
			root := t.TempDir()
			state := filepath.Join(root, "zap")
			text := strings.ReplaceAll(LedgerProbe, "/var/lib/zap", state)
			if code, out := runProbe(t, sh, text); code != 0 || out != "" {
				t.Errorf("no directory: %d %q", code, out)
			}
			pending := filepath.Join(state, "pending")
			must(t, os.MkdirAll(pending, 0o755))
			must(t, os.WriteFile(filepath.Join(pending, "nginx"), []byte("reload\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(pending, "getty@tty1.service"), []byte("restart\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(pending, "odd"), []byte("reload\nrm -rf /\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(pending, "a b"), []byte("reload\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(pending, ".hidden"), []byte("reload\n"), 0o644))
			must(t, os.Mkdir(filepath.Join(pending, "dir"), 0o755))
			must(t, os.Symlink("nginx", filepath.Join(pending, "link")))
			code, out := runProbe(t, sh, text)
			l := &Ledger{}
			r := l.Verdict([]Answer{svcExit(code, out)})
			want := []observation.Marker{{Service: "getty@tty1.service", Action: "restart"}, {Service: "nginx", Action: "reload"}, {Service: "odd", Action: "restart"}}
			if r.Verdict != observation.Converged || !reflect.DeepEqual(l.Markers, want) || l.Strays != 4 || !reflect.DeepEqual(l.Unknown, []string{"odd"}) {
				t.Errorf("got %d %q: %+v %+v", code, out, r, l)
			}
			must(t, os.RemoveAll(pending))
			must(t, os.Symlink(root, pending))
			if code, _ := runProbe(t, sh, text); code != 3 {
				t.Errorf("a link: exit %d", code)
			}
			must(t, os.Remove(pending))
			must(t, os.WriteFile(pending, nil, 0o644))
			if code, _ := runProbe(t, sh, text); code != 3 {
				t.Errorf("a file: exit %d", code)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzLedgerVerdict: whatever the probe prints, the parse never panics,
// and what it accepts are markers of service names, sorted, each once,
// owing a restart or a reload.
func FuzzLedgerVerdict(f *testing.F) {
	for _, s := range []string{"", "m web reload\n", "x\nm a restart\nm b unknown\n", "m  reload\n", "m a\tb reload\n"} {
		f.Add(0, s)
	}
	f.Fuzz(func(t *testing.T, code int, out string) {
		l := &Ledger{}
		r := l.Verdict([]Answer{{Status: StatusOK, Exit: code, Output: out}})
		if r.Verdict != observation.Converged {
			if r.Verdict != observation.Undetermined || r.Reason == "" {
				t.Fatalf("verdict %+v", r)
			}
			return
		}
		for i, m := range l.Markers {
			if !markerName.MatchString(m.Service) || (m.Action != observation.Restart && m.Action != observation.Reload) {
				t.Fatalf("marker %+v", m)
			}
			if i > 0 && l.Markers[i-1].Service >= m.Service {
				t.Fatalf("markers out of order: %+v", l.Markers)
			}
		}
	})
}
