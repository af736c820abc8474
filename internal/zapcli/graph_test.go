package zapcli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// graphDecl has every edge zap graph draws: depends_on, a file's triggers,
// a service's restart_on and reload_on, and an id a DOT string must escape.
const graphDecl = `{"format":"zap.declaration/1","target":{"host":{"$env":"DEPLOY_HOST"},"service_manager":"systemd"},"resources":[
{"id":"app-dir","type":"directory","path":"/srv/app"},
{"id":"unit","type":"file","path":"/etc/systemd/system/app.service","content":{"type":"inline","content":"[Service]\n"},"triggers":["app"]},
{"id":"conf","type":"file","path":"/srv/app/app.conf","content":{"type":"inline","content":"x\n"},"depends_on":["app-dir"]},
{"id":"env","type":"file","path":"/srv/app/env","content":{"type":"inline","content":"y\n"},"depends_on":["app-dir"]},
{"id":"app","type":"service","service":"app","running":true,"restart_on":["conf"],"reload_on":["env"],"depends_on":["unit"]},
{"id":"seed.v2","type":"script","check":"true","run":"true","depends_on":["app"]}]}`

// TestGraphDOTGolden holds zap graph's DOT to testdata/graph.dot (ZAP_UPDATE=1
// rewrites it): nodes in declaration order with the last run's verdict,
// held for undetermined, a resource the run didn't read said so, and the
// edges drawn from what applies first. The same inputs give the same bytes.
func TestGraphDOTGolden(t *testing.T) {
	d, err := declaration.Read([]byte(graphDecl))
	if err != nil {
		t.Fatal(err)
	}
	last := &state.Report{
		Format:  state.Format,
		Time:    "2026-12-02T13:00:00Z",
		Command: state.CmdObserve,
		Host:    "203.0.113.7",
		Resources: []state.Resource{
			{ID: "app-dir", Verdict: observation.Converged},
			{ID: "unit", Verdict: observation.Drifted},
			{ID: "conf", Verdict: observation.Absent},
			{ID: "app", Verdict: observation.Undetermined},
			{ID: "env", Verdict: observation.Converged},
		},
	}
	var got, again bytes.Buffer
	graphDOT(&got, d, last)
	graphDOT(&again, d, last)
	if !bytes.Equal(got.Bytes(), again.Bytes()) {
		t.Fatalf("two renderings of one config and run differ:\n%s\n---\n%s", got.Bytes(), again.Bytes())
	}
	golden(t, filepath.Join("testdata", "graph.dot"), got.Bytes())

	// No last run: no verdict line on any box, and the title says so.
	var none bytes.Buffer
	graphDOT(&none, d, nil)
	golden(t, filepath.Join("testdata", "graph_no_last_run.dot"), none.Bytes())

	// What Graphviz makes of it: dot lays both out without a complaint.
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skipf("Graphviz's dot is not installed, so the DOT isn't laid out: %v", err)
	}
	for _, src := range [][]byte{got.Bytes(), none.Bytes()} {
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = bytes.NewReader(src)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if out, err := cmd.Output(); err != nil || stderr.Len() > 0 || !bytes.Contains(out, []byte("<svg")) {
			t.Errorf("dot -Tsvg: %v\n%s", err, stderr.String())
		}
	}
}

// golden compares got with the file at path, or writes it under ZAP_UPDATE.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if os.Getenv("ZAP_UPDATE") != "" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (ZAP_UPDATE=1 writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (ZAP_UPDATE=1 rewrites it); got:\n%s", path, got)
	}
}

// TestDotQuote: a quote and a backslash are escaped and an invisible
// character spelled out, so no id or host can end a DOT string early or
// add a line; lines are joined by DOT's \n.
func TestDotQuote(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"plain"}, `"plain"`},
		{[]string{`a"b`}, `"a\"b"`},
		{[]string{`ends\`}, `"ends\\"`},
		{[]string{"two\nlines"}, `"two<U+000A>lines"`},
		{[]string{"id", "file"}, `"id\nfile"`},
	} {
		if got := dotQuote(c.in...); got != c.want {
			t.Errorf("dotQuote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
