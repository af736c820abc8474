package state

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/pin"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/observation"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "zap")
	s, err := Open(func(k string) string {
		if k == "ZAP_HOME" {
			return dir
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func preview(hash string) *Report {
	return &Report{
		Time:     "2026-01-02T03:04:05Z",
		Command:  CmdPlan,
		Host:     "local",
		Preview:  true,
		PlanHash: hash,
		Batches:  []observation.Batch{{Lane: observation.LaneLogin, Queries: 2}},
		Resources: []Resource{
			{ID: "a", Verdict: observation.Absent, Hash: strings.Repeat("1", 64)},
		},
	}
}

func TestOpenEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
		err  bool
	}{
		{"home", map[string]string{"HOME": "/home/a"}, "/home/a/.zap", false},
		{"zap home wins", map[string]string{"HOME": "/home/a", "ZAP_HOME": "/var/z"}, "/var/z", false},
		{"no home", map[string]string{}, "", true},
		{"relative home", map[string]string{"HOME": "home/a"}, "", true},
		{"relative zap home", map[string]string{"HOME": "/home/a", "ZAP_HOME": "z"}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(env(tc.env))
			if tc.err {
				if !errors.Is(err, ErrEnv) {
					t.Fatalf("got %v, want ErrEnv", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Dir() != tc.want {
				t.Fatalf("dir %q, want %q", s.Dir(), tc.want)
			}
		})
	}
}

func TestSaveLoad(t *testing.T) {
	s := newStore(t)
	if l, err := s.Load("/p/zap.ts", "local"); err != nil || l != nil {
		t.Fatalf("no state yet: got %v, %v", l, err)
	}
	if err := s.Save("/p/zap.ts", "local", preview("ab")); err != nil {
		t.Fatal(err)
	}
	l, err := s.Load("/p/zap.ts", "local")
	if err != nil || l == nil {
		t.Fatalf("load: %v, %v", l, err)
	}
	if l.Report.PlanHash != "ab" || !l.Report.Preview || l.Report.Format != Format {
		t.Fatalf("read back %+v", l.Report)
	}
	// Another config, or another host, has no report.
	if l, _ := s.Load("/q/zap.ts", "local"); l != nil {
		t.Fatal("another config read the report")
	}
	if l, _ := s.Load("/p/zap.ts", "example.com"); l != nil {
		t.Fatal("another host read the report")
	}
	// Modes: directories 700, the report 600, no temporary file left.
	for path, want := range map[string]os.FileMode{s.Dir(): 0o700, s.reports(): 0o700, s.ReportPath("/p/zap.ts", "local"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %o, want %o", path, fi.Mode().Perm(), want)
		}
	}
	entries, _ := os.ReadDir(s.reports())
	if len(entries) != 1 {
		t.Errorf("reports/ holds %d entries, want 1", len(entries))
	}
}

func TestKeyName(t *testing.T) {
	s := newStore(t)
	p := s.ReportPath("/home/a/project/zap.ts", "local")
	base := filepath.Base(p)
	if len(base) != 16+len("-local.json") || !strings.HasSuffix(base, "-local.json") {
		t.Fatalf("report name %q", base)
	}
	if got := hostName("a/b c"); strings.ContainsAny(got, "/ ") {
		t.Fatalf("host name %q keeps a separator", got)
	}
}

func TestOtherFormatIsNoLastRun(t *testing.T) {
	s := newStore(t)
	if err := s.Save("/p/zap.ts", "local", preview("ab")); err != nil {
		t.Fatal(err)
	}
	path := s.ReportPath("/p/zap.ts", "local")
	for _, old := range []string{`{"format":"zap.report/1","anything":1}`, `{"format":"zap.report/2","batches":[],"resources":[]}`} {
		if err := WriteFile(path, []byte(old)); err != nil {
			t.Fatal(err)
		}
		if l, err := s.Load("/p/zap.ts", "local"); err != nil || l != nil {
			t.Fatalf("an older version: got %v, %v; want no last run", l, err)
		}
	}
	// A report of this version that doesn't decode is an error, not a guess.
	if err := WriteFile(path, []byte(`{"format":"zap.report/3","time":1}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("/p/zap.ts", "local"); err == nil {
		t.Fatal("a broken report read without error")
	}
}

func TestUntrusted(t *testing.T) {
	s := newStore(t)
	if err := s.Save("/p/zap.ts", "local", preview("ab")); err != nil {
		t.Fatal(err)
	}
	path := s.ReportPath("/p/zap.ts", "local")

	// A report other accounts can write.
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("/p/zap.ts", "local"); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("a world-writable report: got %v", err)
	}
	os.Chmod(path, 0o600)

	// A report that is a link.
	other := filepath.Join(t.TempDir(), "elsewhere.json")
	data, _ := os.ReadFile(path)
	os.WriteFile(other, data, 0o600)
	os.Remove(path)
	if err := os.Symlink(other, path); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("/p/zap.ts", "local"); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("a linked report: got %v", err)
	}
	os.Remove(path)

	// A state directory other accounts can write.
	if err := os.Chmod(s.reports(), 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("/p/zap.ts", "local"); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("a world-writable reports/: got %v", err)
	}
	if err := s.Save("/p/zap.ts", "local", preview("ab")); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("save into a world-writable reports/: got %v", err)
	}
	os.Chmod(s.reports(), 0o700)

	// A report another user owns (only root can make one).
	if os.Geteuid() == 0 {
		if err := s.Save("/p/zap.ts", "local", preview("ab")); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Load("/p/zap.ts", "local"); !errors.Is(err, ErrUntrusted) {
			t.Fatalf("another user's report: got %v", err)
		}
	} else {
		t.Log("not root: the other-owner case needs chown and is checked when the tests run as root")
	}
}

// TestClaimRace starts two wetruns on one preview: exactly one claims it.
func TestClaimRace(t *testing.T) {
	for round := 0; round < 50; round++ {
		s := newStore(t)
		if err := s.Save("/p/zap.ts", "local", preview("ab")); err != nil {
			t.Fatal(err)
		}
		var wg, loaded sync.WaitGroup
		results := make([]error, 2)
		loaded.Add(len(results))
		start := make(chan struct{})
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l, err := s.Load("/p/zap.ts", "local")
				loaded.Done()
				if err != nil || l == nil {
					results[i] = errors.Join(errors.New("load"), err)
					return
				}
				<-start
				results[i] = s.Claim("/p/zap.ts", "local", l)
				if results[i] == nil {
					// The winner records its own pass, as a wetrun does.
					r := preview("ab")
					r.Preview = false
					r.Command = CmdWetrun
					if err := s.Save("/p/zap.ts", "local", r); err != nil {
						results[i] = err
					}
				}
			}()
		}
		loaded.Wait()
		close(start)
		wg.Wait()
		won, lost := 0, 0
		for _, err := range results {
			switch {
			case err == nil:
				won++
			case errors.Is(err, ErrClaimLost):
				lost++
			default:
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 || lost != 1 {
			t.Fatalf("round %d: %d claimed and %d lost, want 1 and 1", round, won, lost)
		}
		// The winner's report is the last word, and the preview is spent.
		l, err := s.Load("/p/zap.ts", "local")
		if err != nil || l == nil || l.Report.Preview {
			t.Fatalf("round %d: after the race the report is %+v (%v)", round, l, err)
		}
		entries, _ := os.ReadDir(s.reports())
		if len(entries) != 1 {
			t.Fatalf("round %d: reports/ holds %d entries, want 1", round, len(entries))
		}
	}
}

// TestClaimSpent: a preview a wetrun already spent can't be claimed again.
func TestClaimSpent(t *testing.T) {
	s := newStore(t)
	if err := s.Save("/p/zap.ts", "local", preview("ab")); err != nil {
		t.Fatal(err)
	}
	l, _ := s.Load("/p/zap.ts", "local")
	if err := s.Claim("/p/zap.ts", "local", l); err != nil {
		t.Fatal(err)
	}
	if err := s.Claim("/p/zap.ts", "local", l); !errors.Is(err, ErrClaimLost) {
		t.Fatalf("second claim: got %v", err)
	}
	// A report written since is not the preview that was read: it is
	// left in place.
	r := preview("ab")
	r.Command = CmdWetrun
	r.Preview = false
	if err := s.Save("/p/zap.ts", "local", r); err != nil {
		t.Fatal(err)
	}
	if err := s.Claim("/p/zap.ts", "local", l); !errors.Is(err, ErrClaimLost) {
		t.Fatalf("claim over a newer report: got %v", err)
	}
	if got, _ := s.Load("/p/zap.ts", "local"); got == nil || got.Report.Command != CmdWetrun {
		t.Fatalf("the newer report was not put back: %+v", got)
	}
}

func TestNewReport(t *testing.T) {
	var o observation.Observations
	doc := `{"format":"zap.observations/1","declaration":{"format":"zap.declaration/1","target":{"local":true},"resources":[{"id":"d","type":"directory","path":"~/d"}]},
		"context":{"target":"local","user":"a","home":"/home/a"},"unresolved":["X"],"batches":[{"lane":"login","queries":1}],
		"resources":[{"id":"d","verdict":"undetermined","reason":"SECRET-REASON from the target"}]}`
	if err := json.Unmarshal([]byte(doc), &o); err != nil {
		t.Fatal(err)
	}
	res := resolve.Resolve(&o.Declaration, func(string) (string, bool) { return "", false })
	r, err := NewReport(Pass{Command: CmdDetect, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)), Obs: &o, Hasher: resolve.NewHasher(res)})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(r)
	if strings.Contains(string(data), "SECRET-REASON") {
		t.Fatal("the report copied what the target returned")
	}
	if r.Time != "2026-01-02T02:04:05Z" || r.Host != "local" || r.User != "a" || r.Resources[0].Verdict != observation.Undetermined || r.Unresolved[0] != "X" {
		t.Fatalf("report %s", data)
	}
}

func TestPinCache(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(func(k string) string {
		if k == "ZAP_HOME" {
			return filepath.Join(dir, "zap")
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	c := s.PinCache()
	st := pin.Stat{Dev: 1, Ino: 2, Size: 3, MtimeNs: 4, CtimeNs: 5}
	if _, ok, err := c.Lookup(st); ok || err != nil {
		t.Fatalf("Lookup in no cache = %v, %v", ok, err)
	}
	want := strings.Repeat("ab", 32)
	if err := c.Store(st, want); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := c.Lookup(st); !ok || err != nil || got != want {
		t.Fatalf("Lookup = %q, %v, %v", got, ok, err)
	}
	moved := st
	moved.CtimeNs++
	if _, ok, _ := c.Lookup(moved); ok {
		t.Errorf("a moved change time was a hit")
	}
	fi, err := os.Stat(filepath.Join(dir, "zap", "cache", "eval_pins"))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("eval_pins: %v, mode %v; want 700", err, fi)
	}
	// Another account could write it: refused.
	os.Chmod(filepath.Join(dir, "zap", "cache", "eval_pins"), 0o777)
	if _, _, err := c.Lookup(st); !errors.Is(err, ErrUntrusted) {
		t.Errorf("Lookup in a world-writable cache: %v, want ErrUntrusted", err)
	}
}

// TestLoadLimits checks a last-run report and a pin cache entry past the
// limits of a document are refused, naming the file and the bound: 50,000
// nested lists (which ran out of memory) and a report over canon.MaxSize,
// refused by its size.
func TestLoadLimits(t *testing.T) {
	deep := func(format string) []byte {
		return []byte(`{"format":"` + format + `","x":` + strings.Repeat("[", 50000) + strings.Repeat("]", 50000) + `}`)
	}
	s := newStore(t)
	if err := s.Save("/p/zap.ts", "local", preview("ab")); err != nil {
		t.Fatal(err)
	}
	path := s.ReportPath("/p/zap.ts", "local")
	for _, c := range []struct {
		name string
		doc  []byte
		size int64
		msg  string
	}{
		{"deep", deep(Format), 0, path + ": not a report: document depth limit: nests more than 128 deep (at byte 156)"},
		// Held to the limits whatever its version, before it is read.
		{"deep, an older version", deep("zap.report/1"), 0, path + ": not a report: document depth limit: nests more than 128 deep (at byte 156)"},
		{"big", []byte(`{"format":"zap.report/2"}`), canon.MaxSize + 1, path + ": document size limit: larger than 64 MiB"},
	} {
		if err := WriteFile(path, c.doc); err != nil {
			t.Fatal(err)
		}
		if c.size > 0 {
			if err := os.Truncate(path, c.size); err != nil {
				t.Fatal(err)
			}
		}
		_, err := s.Load("/p/zap.ts", "local")
		var limit *canon.LimitError
		if !errors.As(err, &limit) || err.Error() != c.msg {
			t.Errorf("%s: %v, want %q", c.name, err, c.msg)
		}
	}

	c := s.PinCache()
	st := pin.Stat{Dev: 1, Ino: 2, Size: 3, MtimeNs: 4, CtimeNs: 5}
	if err := c.Store(st, strings.Repeat("ab", 32)); err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(s.pinsDir(), "1-2.json")
	if err := WriteFile(entry, deep(PinFormat)); err != nil {
		t.Fatal(err)
	}
	_, _, err := c.Lookup(st)
	var limit *canon.LimitError
	if !errors.As(err, &limit) || !strings.HasPrefix(err.Error(), entry+": document depth limit") {
		t.Errorf("a deep pin cache entry: %v", err)
	}
	// One that otherwise doesn't read is a miss, as it was.
	if err := WriteFile(entry, []byte(`{"format":"zap.evalpin/1","x":1}`)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := c.Lookup(st); ok || err != nil {
		t.Errorf("an entry that doesn't read: %v, %v; want a miss", ok, err)
	}
}
