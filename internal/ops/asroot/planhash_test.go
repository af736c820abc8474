package asroot_test

// What runs on a target for a put whose content is remote is the text
// plan_hash covers: the put-stream script, named by every plan with such a
// put, its text and invocation part of the hash.

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/ops/asroot"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// shellRoot runs the operation scripts with /bin/sh as the test's own
// account, and records each script text it was handed to run on its argv.
type shellRoot struct{ ran []string }

func (r *shellRoot) RunOp(ctx context.Context, name plan.OpName, stdin []byte, args ...string) ([]byte, error) {
	return r.exec(ctx, name, bytes.NewReader(stdin), append([]string{"-s", "--"}, args...))
}

func (r *shellRoot) RunOpCommand(ctx context.Context, name plan.OpName, script string, stdin io.Reader, args ...string) ([]byte, error) {
	r.ran = append(r.ran, script)
	return r.exec(ctx, name, stdin, append([]string{"-c", script, "sh"}, args...))
}

func (r *shellRoot) exec(ctx context.Context, name plan.OpName, stdin io.Reader, args []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", args...)
	cmd.Stdin, cmd.Dir = stdin, "/"
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		return nil, asroot.Failure(name, ee.ExitCode(), stderr.String())
	}
	return stdout.Bytes(), err
}

// remotePlan is a plan of one put whose content is remote.
func remotePlan() *plan.Plan {
	url := declaration.Lit("https://example.org/big.bin")
	from := &declaration.Content{Type: declaration.ContentRemote, URL: &url, Blake3: strings.Repeat("ab", 32)}
	return &plan.Plan{Format: plan.Format, Changes: []plan.Change{{
		ID: "big", Type: declaration.KindFile, Action: plan.Create,
		Steps: []plan.Step{{Type: plan.StepOp, Op: &plan.Op{Name: plan.OpPut, Path: declaration.Lit("/srv/big.bin"), From: from, Privilege: plan.Elevated}}},
	}}}
}

// TestRemotePutRunsWhatPlanHashCovers: a plan with a remote put names
// put-stream, so changing the streamed tail's text, or how it is run,
// moves plan_hash (a plan of an inline put doesn't move: it never runs
// it); and the put of a Body runs, for real, exactly that text.
func TestRemotePutRunsWhatPlanHashCovers(t *testing.T) {
	p := remotePlan()
	if ops := p.Ops(); len(ops) != 2 || ops[0] != plan.OpPut || ops[1] != plan.OpPutStream {
		t.Fatalf("a remote put's plan uses %v, want put and put-stream", ops)
	}
	stream, ok := ops.Script(plan.OpPutStream)
	if !ok || stream.Invocation != ops.StreamInvocation {
		t.Fatalf("no put-stream script run as %q", ops.StreamInvocation)
	}
	tail := `zap_stdin zap_put "$@"`
	if !strings.HasSuffix(strings.TrimRight(stream.Text, "\n"), tail) {
		t.Fatalf("the put-stream script doesn't end in %q", tail)
	}
	edited := func(edit func(*plan.Script)) func(plan.OpName) (plan.Script, bool) {
		return func(n plan.OpName) (plan.Script, bool) {
			s, ok := ops.Script(n)
			if n == plan.OpPutStream {
				edit(&s)
			}
			return s, ok
		}
	}
	hash := func(p *plan.Plan, script func(plan.OpName) (plan.Script, bool)) string {
		t.Helper()
		h, err := plan.Hash(p, script)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	base := hash(p, ops.Script)
	newTail := edited(func(s *plan.Script) {
		s.Text = strings.Replace(s.Text, tail, "IFS= read -r zap_args\nset -- \"$@\" $zap_args\nzap_put \"$@\"", 1)
	})
	newInvocation := edited(func(s *plan.Script) { s.Invocation = "sh -s --" })
	for name, script := range map[string]func(plan.OpName) (plan.Script, bool){"tail": newTail, "invocation": newInvocation} {
		if got := hash(p, script); got == base {
			t.Errorf("another streamed %s left plan_hash at %s", name, got)
		}
	}
	inline := remotePlan()
	content := "small\n"
	inline.Changes[0].Steps[0].Op.From, inline.Changes[0].Steps[0].Op.Content = nil, &content
	if hash(inline, ops.Script) != hash(inline, newTail) {
		t.Error("the put-stream script's text moved the plan_hash of a plan with no remote put")
	}

	body := []byte("remote bytes\x00 with no final newline")
	sum := sha512.Sum512(body)
	at := filepath.Join(t.TempDir(), "sub", "big.bin")
	root := &shellRoot{}
	put := &execute.Put{Path: at, Mode: "600", Body: &execute.Body{From: bytes.NewReader(body), Size: int64(len(body))}, SHA512: hex.EncodeToString(sum[:])}
	if err := asroot.Put(context.Background(), root, put); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(at); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("%s holds %q (%v), want %q", at, got, err, body)
	}
	if len(root.ran) != 1 || root.ran[0] != stream.Text {
		t.Errorf("the put of a Body ran %d script(s) on the argv, not the put-stream script plan_hash covers", len(root.ran))
	}
}
