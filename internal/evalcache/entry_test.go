package evalcache

import (
	"bytes"
	"testing"

	"github.com/zap-go/zap/pkg/canon"
)

// TestEntryBytes: an entry written the quick way is canon.Marshal's bytes,
// for declarations the quick way takes and for those it leaves.
func TestEntryBytes(t *testing.T) {
	inputs := []Input{{Path: "/p/zap.ts", Blake3: "ab"}, {Path: `/p/"declaration":""`, Absent: true}}
	for _, decl := range []string{
		"",
		`{"format":"zap.declaration/1","resources":[{"content":{"content":"a\"b\\c\nd\te <>&","type":"inline"}}]}` + "\n",
		"tab\tnewline\nquote\"backslash\\",
		`"declaration":""`,
		"é non-ASCII \u2028",
		"control \x01 \r",
		"del \x7f",
	} {
		e := Entry{Format: Format, Config: `/p/"x"/zap.ts`, Toolchain: "pin", Inputs: inputs, InputsHash: "h"}
		got, err := entryBytes(e, []byte(decl))
		if err != nil {
			t.Fatal(err)
		}
		e.Declaration = decl
		want, err := canon.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("declaration %q:\n got %s\nwant %s", decl, got, want)
		}
	}
}
