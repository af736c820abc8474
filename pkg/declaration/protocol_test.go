package declaration_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/planner"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

const protocolDoc = "../../docs/protocol.md"

// examples returns the fenced blocks of docs/protocol.md that follow a
// "<!-- example: NAME -->" line, by NAME, in order.
func examples(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	var name string
	var block *strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case block != nil && line == "```":
			out[name] = append(out[name], block.String())
			block, name = nil, ""
		case block != nil:
			block.WriteString(line + "\n")
		case strings.HasPrefix(line, "<!-- example: ") && strings.HasSuffix(line, " -->"):
			name = strings.TrimSuffix(strings.TrimPrefix(line, "<!-- example: "), " -->")
		case name != "" && line == "```json":
			block = &strings.Builder{}
		case name != "" && line != "":
			t.Fatalf("%s: the example marker for %s isn't followed by a ```json block", protocolDoc, name)
		}
	}
	for _, want := range []string{"declaration", "observations", "plan", "events"} {
		if len(out[want]) == 0 {
			t.Fatalf("%s: no %s example", protocolDoc, want)
		}
	}
	return out
}

// sameAsEncoded checks that encoding what was read gives the canonical form
// of the example as written.
func sameAsEncoded(t *testing.T, what, example string, encoded []byte) {
	t.Helper()
	want, err := canon.Transform([]byte(example))
	if err != nil {
		t.Fatalf("%s example: %v", what, err)
	}
	if !bytes.Equal(encoded, want) {
		t.Errorf("the %s example isn't what its type encodes:\n got %s\nwant %s", what, encoded, want)
	}
}

// TestProtocolExamples reads every example of docs/protocol.md with the
// reader of its document and checks the examples agree with each other: the
// observations embed the declaration, the plan is what the planner makes of
// the observations, and the first event stream runs that plan.
func TestProtocolExamples(t *testing.T) {
	ex := examples(t)

	d, err := declaration.Read([]byte(ex["declaration"][0]))
	if err != nil {
		t.Fatalf("declaration example: %v", err)
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("declaration example: %v", err)
	}
	declBytes, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	sameAsEncoded(t, "declaration", ex["declaration"][0], declBytes)

	o, err := observation.Read([]byte(ex["observations"][0]))
	if err != nil {
		t.Fatalf("observations example: %v", err)
	}
	obsBytes, err := o.Encode()
	if err != nil {
		t.Fatal(err)
	}
	sameAsEncoded(t, "observations", ex["observations"][0], obsBytes)
	embedded, err := o.Declaration.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(embedded, declBytes) {
		t.Errorf("the observations example embeds another declaration:\n%s\n%s", embedded, declBytes)
	}

	p, err := plan.Read([]byte(ex["plan"][0]))
	if err != nil {
		t.Fatalf("plan example: %v", err)
	}
	planBytes, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	sameAsEncoded(t, "plan", ex["plan"][0], planBytes)
	if b, err := hex.DecodeString(p.Hash); err != nil || len(b) != 32 || strings.ToLower(p.Hash) != p.Hash {
		t.Errorf("plan example: plan_hash %q isn't 64 lowercase hex digits", p.Hash)
	}
	// The hash depends on the operation scripts of the build, so it is left
	// out of the comparison with what the planner makes now.
	made, err := planner.Plan(o)
	if err != nil {
		t.Fatalf("planning the observations example: %v", err)
	}
	made.Hash = p.Hash
	madeBytes, err := made.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(madeBytes, planBytes) {
		t.Errorf("the plan example isn't what zap-plan makes of the observations example; regenerate it:\n got %s\nwant %s", madeBytes, planBytes)
	}

	for i, stream := range ex["events"] {
		lines := strings.Split(strings.TrimSuffix(stream, "\n"), "\n")
		for _, line := range lines {
			e, err := events.Read([]byte(line))
			if err != nil {
				t.Errorf("events example %d: %v\n%s", i, err, line)
				continue
			}
			again, err := e.Marshal()
			if err != nil || string(again) != line {
				t.Errorf("events example %d: the line isn't what Marshal writes:\n got %s\nwant %s", i, again, line)
			}
		}
		if i == 0 {
			first, err := events.Read([]byte(lines[0]))
			if err != nil || first.Event != events.RunStarted || first.PlanHash != p.Hash || first.Changes != len(p.Changes) {
				t.Errorf("the first events example doesn't start the plan example's run: %s", lines[0])
			}
		}
	}
}
