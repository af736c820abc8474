package zapdetect

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kinds/script"
	"github.com/zap-go/zap/internal/localhost"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// TestObservationsRead checks that what zap-detect writes is a document
// observation.Read accepts, so zap-plan can read it from a pipe.
func TestObservationsRead(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("NOTE", "")
	if err := os.WriteFile(filepath.Join(home, "motd"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	decl := `{"format":"zap.declaration/1","target":{"local":true},"resources":[
	  {"id":"motd","type":"file","path":"~/motd","content":{"type":"inline","content":"hi\n"}},
	  {"id":"note","type":"file","path":{"$env":"NOTE"},"content":{"type":"inline","content":""}},
	  {"id":"d","type":"directory","path":"~/d","mode":"700"},
	  {"id":"s","type":"script","check":"exit 3","run":"true"}]}`
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), nil, strings.NewReader(decl), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !bytes.HasSuffix(stdout.Bytes(), []byte("}\n")) || bytes.Count(stdout.Bytes(), []byte("\n")) != 1 {
		t.Errorf("want one line of JSON and a newline, got %q", stdout.String())
	}
	o, err := observation.Read(bytes.TrimSuffix(stdout.Bytes(), []byte("\n")))
	if err != nil {
		t.Fatalf("observation.Read: %v", err)
	}
	want := []observation.Verdict{observation.Converged, observation.Undetermined, observation.Absent, observation.Absent}
	for i, r := range o.Resources {
		if r.Verdict != want[i] {
			t.Errorf("%s: %s, want %s", r.ID, r.Verdict, want[i])
		}
	}
	if len(o.Unresolved) != 1 || o.Unresolved[0] != "NOTE" {
		t.Errorf("unresolved %v", o.Unresolved)
	}
	if o.Context.Home != home || o.Context.Target != "local" || o.Context.User == "" {
		t.Errorf("context %+v", o.Context)
	}
}

// TestCheckTimeout runs a script's check past a short limit through the
// pass and the local host: it holds, saying it timed out.
func TestCheckTimeout(t *testing.T) {
	d := &script.Script{Command: &detect.Command{Text: "sleep 30", Timeout: 1}}
	host := &localhost.Host{Env: os.Environ()}
	_, results := detect.Pass(context.Background(), host, []detect.Detector{d})
	if r := results[0]; r.Verdict != observation.Undetermined || r.Reason != "the check timed out after 1s" {
		t.Errorf("got %+v", r)
	}
}

// TestEncodeSplice checks that the observations written with their
// declaration's bytes made beforehand are the bytes Encode writes, where
// strings before and inside the declaration spell its key.
func TestEncodeSplice(t *testing.T) {
	d, err := declaration.Read([]byte(`{"format":"zap.declaration/1","target":{"host":"h\"declaration\":{}","user":"u"},"resources":[
	  {"id":"motd","type":"file","path":"/etc/motd","content":{"type":"inline","content":"\"declaration\":{\"format\":\"\"}\n"}},
	  {"id":"d","type":"directory","path":"/srv/d","mode":"700"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	o := &observation.Observations{
		Format:      observation.Format,
		Declaration: *d,
		Context:     observation.Context{Target: `"declaration":{"format":""}`, User: "u"},
		Batches:     []observation.Batch{{Lane: observation.LaneLogin, Queries: 4}},
		Resources:   []observation.Resource{{ID: "motd", Verdict: observation.Converged}, {ID: "d", Verdict: observation.Absent}},
		Warnings:    []string{`"declaration":{}`},
	}
	want, err := o.Encode()
	if err != nil {
		t.Fatal(err)
	}
	decl, err := canon.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, pre := range [][]byte{decl, nil} {
		got, err := encode(o, pre)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("encode with %d bytes made beforehand:\n got %s\nwant %s", len(pre), got, want)
		}
	}
	// The bytes given are the ones written: nothing encoded the
	// declaration again.
	got, err := encode(o, []byte(`{"x":1}`))
	if err != nil || !bytes.Contains(got, []byte(`,"declaration":{"x":1},`)) {
		t.Errorf("encode with other bytes: %s (%v)", got, err)
	}
}
