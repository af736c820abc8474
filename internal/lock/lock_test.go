package lock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/canon"
)

const pin = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestPath(t *testing.T) {
	for in, want := range map[string]string{
		"zap.ts":          "zap.lock",
		"/srv/x/site.ts":  "/srv/x/site.lock",
		"conf/zap.mts":    "conf/zap.lock",
		"noext":           "noext.lock",
		"dir.v2/zap.ts":   "dir.v2/zap.lock",
		"/a/b/zap.cfg.ts": "/a/b/zap.cfg.lock",
	} {
		got, err := Path(in)
		if err != nil || got != want {
			t.Errorf("Path(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := Path("/x/zap.lock"); !errors.Is(err, ErrLockName) {
		t.Errorf("Path of a *.lock config: %v, want ErrLockName", err)
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "zap.lock")
	if l, err := Read(path); l != nil || err != nil {
		t.Fatalf("Read of no lock = %v, %v; want nil, nil", l, err)
	}
	if err := Write(path, &Lock{Toolchain: &Toolchain{Blake3: pin}}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	want := "{\n  \"format\": \"zap.lock/2\",\n  \"entries\": [],\n  \"toolchain\": {\n    \"blake3\": \"" + pin + "\"\n  }\n}\n"
	if string(raw) != want {
		t.Errorf("written:\n%s\nwant:\n%s", raw, want)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %o, want 644", fi.Mode().Perm())
	}
	l, err := Read(path)
	if err != nil || l.Toolchain == nil || l.Toolchain.Blake3 != pin {
		t.Fatalf("Read = %+v, %v", l, err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("a temporary file was left: %v", ents)
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want error
		msg  string
	}{
		{`{"format":"zap.lock/3","entries":[]}`, ErrNewer, `format "zap.lock/3", and this zap reads "zap.lock/2"`},
		{`{"format":"zap.lock/10"}`, ErrNewer, ""},
		{`{"format":"zap.lock/0"}`, ErrInvalid, ""},
		{`{"format":"zap.lock/02"}`, ErrInvalid, ""},
		{`{"format":"zap.plan/1"}`, ErrInvalid, ""},
		{`{"entries":[],"format":"zap.lock/1"}`, ErrInvalid, `first field`},
		{`{"format":"zap.lock/1","colour":1}`, ErrInvalid, "colour"},
		{`{"format":"zap.lock/1","toolchain":null}`, ErrInvalid, "null"},
		{`{"format":"zap.lock/1","toolchain":{"blake3":"ABC"}}`, ErrInvalid, "toolchain.blake3"},
		{`{"format":"zap.lock/1","toolchain":{"blake3":"` + pin + `","blake3":"` + pin + `"}}`, ErrInvalid, "twice"},
		{`{"format":"zap.lock/2","entries":[` + entry("a", "remote_file") + `,` + entry("a", "build") + `]}`, ErrInvalid, `entries[1].id: "a" has an entry already`},
		{`{"format":"zap.lock/2","entries":[` + entry("a", "file") + `]}`, ErrInvalid, `entries[0] (a).kind: "file" is none of remote_file, build, apt_key`},
		{`{"format":"zap.lock/2","entries":[{"id":"a","kind":"build","blake3":"` + pin + `","config_hash":"x"}]}`, ErrInvalid, `entries[0] (a).config_hash`},
		{`[]`, ErrInvalid, ""},
		{``, ErrInvalid, ""},
	} {
		_, err := Decode([]byte(c.doc))
		if !errors.Is(err, c.want) || !strings.Contains(fmtErr(err), c.msg) {
			t.Errorf("Decode(%s) = %v; want %v containing %q", c.doc, err, c.want, c.msg)
		}
	}
	l, err := Decode([]byte(`{"format":"zap.lock/1"}`))
	if err != nil || l.Toolchain != nil {
		t.Errorf("a lock with no pin = %+v, %v", l, err)
	}
}

func entry(id, kind string) string {
	return `{"id":"` + id + `","kind":"` + kind + `","blake3":"` + pin + `","config_hash":"` + pin + `"}`
}

// A zap.lock/1 reads as it is and is written back as zap.lock/2, its
// entries sorted by id.
func TestOlderVersionReadsAndEntriesSort(t *testing.T) {
	l, err := Decode([]byte(`{"format":"zap.lock/1","entries":[` + entry("b", "build") + `,` + entry("a", "apt_key") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	if e := l.Entry("a"); e == nil || e.Kind != "apt_key" {
		t.Fatalf("Entry(a) = %+v", e)
	}
	l.Set(Entry{ID: "c", Kind: "remote_file", Blake3: pin, ConfigHash: pin})
	if !l.Drop("b") || l.Drop("b") {
		t.Error("Drop(b) twice: want true, then false")
	}
	out, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if !strings.Contains(s, `"format": "zap.lock/2"`) || strings.Index(s, `"id": "a"`) > strings.Index(s, `"id": "c"`) || strings.Contains(s, `"id": "b"`) {
		t.Errorf("encoded:\n%s", s)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestLinkRefused(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.lock")
	if err := Write(real, &Lock{Toolchain: &Toolchain{Blake3: pin}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "zap.lock")
	if err := os.Symlink(real, path); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); !errors.Is(err, ErrLink) {
		t.Errorf("Read through a link: %v, want ErrLink", err)
	}
	if err := Write(path, &Lock{}); !errors.Is(err, ErrLink) {
		t.Errorf("Write over a link: %v, want ErrLink", err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	// A dangling link too.
	dangling := filepath.Join(dir, "other.lock")
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	if _, err := Read(dangling); !errors.Is(err, ErrLink) {
		t.Errorf("Read of a dangling link: %v, want ErrLink", err)
	}
	if err := Write(dangling, &Lock{}); !errors.Is(err, ErrLink) {
		t.Errorf("Write over a dangling link: %v, want ErrLink", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); err == nil {
		t.Errorf("a write went through a dangling link")
	}
	// A directory where the lock goes.
	d := filepath.Join(dir, "d.lock")
	os.Mkdir(d, 0o755)
	if _, err := Read(d); !errors.Is(err, ErrLink) {
		t.Errorf("Read of a directory: %v, want ErrLink", err)
	}
}

func TestWriteKeepsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "zap.lock")
	os.WriteFile(path, []byte("{}"), 0o600)
	if err := Write(path, &Lock{}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %o, want the 600 it had", fi.Mode().Perm())
	}
}

// TestReadLimits checks a lock past the limits of a document is refused
// naming the bound: 50,000 nested lists (which ran out of memory) and a lock
// over MaxSize, refused by its size.
func TestReadLimits(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		doc  string
		size int64
		msg  string
	}{
		"deep": {doc: `{"format":"zap.lock/1","entries":` + strings.Repeat("[", 50000) + strings.Repeat("]", 50000) + `}`, msg: "document depth limit: nests more than 128 deep (at byte 160)"},
		"big":  {doc: `{"format":"zap.lock/1"}`, size: MaxSize + 1, msg: "document size limit: larger than 16 MiB"},
	} {
		path := filepath.Join(dir, name+".lock")
		if err := os.WriteFile(path, []byte(c.doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if c.size > 0 {
			if err := os.Truncate(path, c.size); err != nil {
				t.Fatal(err)
			}
		}
		_, err := Read(path)
		var limit *canon.LimitError
		if !errors.Is(err, ErrInvalid) || !errors.As(err, &limit) || err.Error() != path+": not a lock this zap reads: "+c.msg {
			t.Errorf("%s: %v, want ErrInvalid saying %q", name, err, c.msg)
		}
	}
}
