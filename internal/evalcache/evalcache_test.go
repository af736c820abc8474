package evalcache

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/canon"
)

const (
	pinA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	pinB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

const decl = `{"format":"zap.declaration/1","resources":[],"target":{"local":true}}` + "\n"

// setup makes a project of two files and a state directory, and returns the
// cache, the config and the inputs of an evaluation of it.
func setup(t *testing.T) (*Cache, string, []Input) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(dir, "proj")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"zap.ts": "import './lib.ts';\n", "lib.ts": "export const x = 1;\n"}
	var inputs []Input
	for _, name := range []string{"lib.ts", "zap.ts"} {
		p := filepath.Join(proj, name)
		if err := os.WriteFile(p, []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := blake3.Sum256([]byte(files[name]))
		inputs = append(inputs, Input{Path: p, Blake3: hex.EncodeToString(sum[:])})
	}
	inputs = []Input{inputs[0], {Path: filepath.Join(proj, "node_modules"), Absent: true}, inputs[1]}
	if err := os.Mkdir(filepath.Join(dir, "state"), 0o700); err != nil {
		t.Fatal(err)
	}
	return Open(filepath.Join(dir, "state")), filepath.Join(proj, "zap.ts"), inputs
}

func wantHit(t *testing.T, c *Cache, config, pin string, hit bool) {
	t.Helper()
	out, ok, err := c.Lookup(config, pin)
	if err != nil {
		t.Fatalf("Lookup: %v", err)
	}
	if ok != hit {
		t.Fatalf("Lookup hit = %v, want %v", ok, hit)
	}
	if hit && string(out) != decl {
		t.Fatalf("Lookup = %q, want %q", out, decl)
	}
}

func TestHit(t *testing.T) {
	c, config, inputs := setup(t)
	wantHit(t, c, config, pinA, false)
	if err := c.Store(config, pinA, inputs, []byte(decl)); err != nil {
		t.Fatal(err)
	}
	wantHit(t, c, config, pinA, true)
	// The entry and its directory are private.
	for p, want := range map[string]os.FileMode{c.Dir(): 0o700, c.path(config, pinA): 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %o, want %o", p, fi.Mode().Perm(), want)
		}
	}
}

func TestMisses(t *testing.T) {
	tests := map[string]func(t *testing.T, config string, inputs []Input) (string, string){
		"another pin": func(t *testing.T, config string, _ []Input) (string, string) { return config, pinB },
		"another config": func(t *testing.T, config string, _ []Input) (string, string) {
			return filepath.Join(filepath.Dir(config), "other.ts"), pinA
		},
		"one byte of an input changed": func(t *testing.T, config string, inputs []Input) (string, string) {
			if err := os.WriteFile(inputs[0].Path, []byte("export const x = 2;\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return config, pinA
		},
		"a byte appended": func(t *testing.T, config string, inputs []Input) (string, string) {
			f, err := os.OpenFile(inputs[2].Path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(" ")
			f.Close()
			return config, pinA
		},
		"an input removed": func(t *testing.T, config string, inputs []Input) (string, string) {
			os.Remove(inputs[0].Path)
			return config, pinA
		},
		"an input replaced by a link to the same bytes": func(t *testing.T, config string, inputs []Input) (string, string) {
			data, _ := os.ReadFile(inputs[0].Path)
			other := inputs[0].Path + ".real"
			os.WriteFile(other, data, 0o644)
			os.Remove(inputs[0].Path)
			if err := os.Symlink(other, inputs[0].Path); err != nil {
				t.Fatal(err)
			}
			return config, pinA
		},
		"an absent path appears": func(t *testing.T, config string, inputs []Input) (string, string) {
			if err := os.Mkdir(inputs[1].Path, 0o755); err != nil {
				t.Fatal(err)
			}
			return config, pinA
		},
	}
	for name, change := range tests {
		t.Run(name, func(t *testing.T) {
			c, config, inputs := setup(t)
			if err := c.Store(config, pinA, inputs, []byte(decl)); err != nil {
				t.Fatal(err)
			}
			wantHit(t, c, config, pinA, true)
			config, pin := change(t, config, inputs)
			wantHit(t, c, config, pin, false)
		})
	}
}

// An entry whose manifest was edited (an input dropped, so the rest still
// hashes) no longer matches its inputs_hash: a miss.
func TestTamperedManifest(t *testing.T) {
	c, config, inputs := setup(t)
	if err := c.Store(config, pinA, inputs, []byte(decl)); err != nil {
		t.Fatal(err)
	}
	p := c.path(config, pinA)
	raw, _ := os.ReadFile(p)
	cut := strings.Index(string(raw), `{"blake3"`)
	end := strings.Index(string(raw[cut:]), "},") + cut + 2
	if err := os.WriteFile(p, append(raw[:cut:cut], raw[end:]...), 0o600); err != nil {
		t.Fatal(err)
	}
	wantHit(t, c, config, pinA, false)
}

func TestUntrusted(t *testing.T) {
	c, config, inputs := setup(t)
	if err := c.Store(config, pinA, inputs, []byte(decl)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(c.path(config, pinA), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Lookup(config, pinA); !errors.Is(err, state.ErrUntrusted) {
		t.Errorf("an entry others can read: %v, want ErrUntrusted", err)
	}
	os.Chmod(c.path(config, pinA), 0o600)
	if err := os.Chmod(c.Dir(), 0o750); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Lookup(config, pinA); !errors.Is(err, state.ErrUntrusted) {
		t.Errorf("a directory others can use: %v, want ErrUntrusted", err)
	}
	if err := c.Store(config, pinA, inputs, []byte(decl)); !errors.Is(err, state.ErrUntrusted) {
		t.Errorf("Store in a directory others can use: %v, want ErrUntrusted", err)
	}
}

func TestInputsDocument(t *testing.T) {
	_, _, inputs := setup(t)
	data, err := EncodeInputs(inputs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadInputs(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(inputs) || got[1] != inputs[1] || got[0] != inputs[0] {
		t.Fatalf("ReadInputs = %v, want %v", got, inputs)
	}
	for name, bad := range map[string][]Input{
		"relative":     {{Path: "zap.ts", Blake3: pinA}},
		"unclean":      {{Path: "/a/../b", Blake3: pinA}},
		"out of order": {{Path: "/b", Blake3: pinA}, {Path: "/a", Blake3: pinA}},
		"twice":        {{Path: "/a", Blake3: pinA}, {Path: "/a", Absent: true}},
		"no hash":      {{Path: "/a"}},
		"upper hex":    {{Path: "/a", Blake3: strings.ToUpper(pinA)}},
		"both":         {{Path: "/a", Blake3: pinA, Absent: true}},
	} {
		if _, err := EncodeInputs(bad); err == nil {
			t.Errorf("%s: EncodeInputs accepted %v", name, bad)
		}
	}
	if _, err := ReadInputs([]byte(`{"format":"zap.evalinputs/1","inputs":[],"extra":1}`)); err == nil {
		t.Error("ReadInputs accepted an unknown field")
	}
}

// TestStoreSame checks that storing the entry already there writes nothing,
// and that an entry of the same bytes the user doesn't keep private is
// written again.
func TestStoreSame(t *testing.T) {
	c, config, inputs := setup(t)
	if err := c.Store(config, pinA, inputs, []byte(decl)); err != nil {
		t.Fatal(err)
	}
	path := c.path(config, pinA)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Store(config, pinA, inputs, []byte(decl)); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("the same entry was written again")
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Store(config, pinA, inputs, []byte(decl)); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(after, fi) || fi.Mode().Perm() != 0o600 {
		t.Errorf("an entry others can read wasn't written again (mode %o)", fi.Mode().Perm())
	}
	wantHit(t, c, config, pinA, true)
}

// TestLookupLimits checks an entry past the limits of a document is
// refused, naming the file and the bound (zap makes none: Prepare refuses
// to), where one that otherwise doesn't read is a miss.
func TestLookupLimits(t *testing.T) {
	c, config, inputs := setup(t)
	if err := c.Store(config, pinA, inputs, []byte(decl)); err != nil {
		t.Fatal(err)
	}
	p := c.path(config, pinA)
	for name, tc := range map[string]struct {
		doc  string
		size int64
		msg  string
	}{
		"deep": {doc: `{"format":"zap.evalcache/1","x":` + strings.Repeat("[", 50000) + strings.Repeat("]", 50000) + `}`, msg: p + ": document depth limit: nests more than 128 deep (at byte 159)"},
		"big":  {doc: `{"format":"zap.evalcache/1"}`, size: maxFile + 1, msg: p + ": document size limit: larger than 80 MiB"},
	} {
		if err := os.WriteFile(p, []byte(tc.doc), 0o600); err != nil {
			t.Fatal(err)
		}
		if tc.size > 0 {
			if err := os.Truncate(p, tc.size); err != nil {
				t.Fatal(err)
			}
		}
		_, _, err := c.Lookup(config, pinA)
		var limit *canon.LimitError
		if !errors.As(err, &limit) || err.Error() != tc.msg {
			t.Errorf("%s: %v, want %q", name, err, tc.msg)
		}
	}
	// A declaration whose entry would be over maxFile is not recorded.
	big := make([]byte, maxFile)
	for i := range big {
		big[i] = 'a'
	}
	if _, err := c.Prepare(config, pinA, inputs, big); err == nil || !strings.Contains(err.Error(), "nothing was recorded") {
		t.Errorf("Prepare of an entry over the limit: %v", err)
	}
}
