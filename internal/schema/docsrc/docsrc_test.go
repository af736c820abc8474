package docsrc

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/zap-go/zap/internal/schema"
)

// TestDocsJSONCurrent fails when internal/schema/docs.json isn't what the
// Go doc comments make: a comment changed and go generate wasn't run.
func TestDocsJSONCurrent(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "internal", "schema", "docs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("internal/schema/docs.json is not what the doc comments make of it: run go generate ./internal/schema (or make generate)")
	}
}

// TestEveryFieldHasADoc fails for a field a config writes whose Go field
// has no doc comment: the types' comment, zap doc's rule and the kind's
// page would say nothing of it.
func TestEveryFieldHasADoc(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	docs, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range schema.All() {
		if docs[schema.TypeKey(s.Type)] == "" {
			t.Errorf("%v has no doc comment", s.Type)
		}
		for _, f := range s.Fields {
			if docs[schema.FieldKey(s.Type, f.GoName)] == "" {
				t.Errorf("%v.%s (%s) has no doc comment: write one line a user reads (it is the TypeScript comment and zap doc's rule)", s.Type, f.GoName, f.Name)
			}
		}
		if d := s.Discriminator(); d != nil {
			for _, v := range d.Enum {
				if docs[schema.ConstKey(d.Type, v)] == "" {
					t.Errorf("%v's value %q has no doc comment on its constant", d.Type, v)
				}
			}
		}
	}
}

// TestFirstParagraph: what a user reads is a comment's first paragraph.
func TestFirstParagraph(t *testing.T) {
	if got := firstParagraph("A line\nand more.\n\nFor Go's readers.\n"); got != "A line\nand more." {
		t.Fatalf("firstParagraph = %q", got)
	}
	if got := firstParagraph("\n"); got != "" {
		t.Fatalf("firstParagraph of nothing = %q", got)
	}
}
