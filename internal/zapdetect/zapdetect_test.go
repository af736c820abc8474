package zapdetect

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/localhost"
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
	d := &detect.Script{Command: &detect.Command{Text: "sleep 30", Timeout: 1}}
	host := &localhost.Host{Env: os.Environ()}
	_, results := detect.Pass(context.Background(), host, []detect.Detector{d})
	if r := results[0]; r.Verdict != observation.Undetermined || r.Reason != "the check timed out after 1s" {
		t.Errorf("got %+v", r)
	}
}
