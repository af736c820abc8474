package evalcache

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/canon"
)

// FuzzEvalCacheKeyAndEntry checks what names and fills a cache entry: Key
// is 64 lowercase hex, the same twice, and differs for another config or
// another pin (paths and pins hold no NUL, which Key joins them with); an
// entry written the quick way is canon.Marshal's bytes for any
// declaration; and an inputs document reads back as the inputs it encodes.
func FuzzEvalCacheKeyAndEntry(f *testing.F) {
	pin := strings.Repeat("ab", 32)
	f.Add("/home/u/p/zap.ts", pin, "/home/u/q/zap.ts", strings.Repeat("cd", 32), []byte(`{"format":"zap.declaration/1","resources":[]}`+"\n"))
	f.Add(`/p/"declaration":""`, "pin", "/p/x", "pin", []byte("tab\tnewline\nquote\"backslash\\"))
	f.Add("/p/zap.ts", "", "/p/zap.t", "s", []byte("é non-ASCII \u2028 control \x01 del \x7f"))
	f.Add("/a", "b", "/a", "b", []byte(`"declaration":""`))
	f.Fuzz(func(t *testing.T, config, pin, config2, pin2 string, decl []byte) {
		k := Key(config, pin)
		if !isHex64(k) || Key(config, pin) != k {
			t.Fatalf("Key(%q, %q) = %q, then %q", config, pin, k, Key(config, pin))
		}
		nul := strings.Contains(config+pin+config2+pin2, "\x00")
		if !nul && (config != config2 || pin != pin2) && Key(config2, pin2) == k {
			t.Fatalf("Key(%q, %q) and Key(%q, %q) are both %s", config, pin, config2, pin2, k)
		}
		inputs := []Input{{Path: "/p/zap.ts", Blake3: pin}, {Path: "/p/z", Absent: true}}
		e := Entry{Format: Format, Config: config, Toolchain: pin, Inputs: inputs, InputsHash: config2}
		got, err := entryBytes(e, decl)
		e.Declaration = string(decl)
		want, err2 := canon.Marshal(e)
		if (err == nil) != (err2 == nil) || !bytes.Equal(got, want) {
			t.Fatalf("declaration %q: the quick way gives %s (%v), canon.Marshal %s (%v)", decl, got, err, want, err2)
		}
		if config < config2 {
			in := []Input{{Path: config, Blake3: pin}, {Path: config2, Absent: true}}
			doc, err := EncodeInputs(in)
			if err != nil {
				return
			}
			back, err := ReadInputs(doc)
			if err != nil || !reflect.DeepEqual(back, in) {
				t.Fatalf("inputs %+v came back as %+v (%v)\n%s", in, back, err, doc)
			}
		}
	})
}
