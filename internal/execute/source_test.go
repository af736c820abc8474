package execute

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

func fromChange(id, path string, from declaration.Content) plan.Change {
	return plan.Change{ID: id, Type: declaration.KindFile, Action: plan.Create, Steps: []plan.Step{{
		Type: plan.StepOp, Op: &plan.Op{Name: plan.OpPut, Path: declaration.Lit(path), From: &from, Privilege: plan.Elevated},
	}}}
}

func templateContent(body string, vars map[string]declaration.Var, kinds map[string]string) declaration.Content {
	return declaration.Content{Type: declaration.ContentTemplate, Template: &body, Vars: vars, Kinds: kinds}
}

func refVar(name string) declaration.Var {
	t := declaration.Ref(name)
	return declaration.Var{Text: &t}
}

func hexSum(b []byte) string { s := sha512.Sum512(b); return hex.EncodeToString(s[:]) }

// TestPrepareTemplate checks that a template put is rendered with its
// references resolved, its digest the rendered bytes'.
func TestPrepareTemplate(t *testing.T) {
	c := fromChange("env", "/etc/app.env", templateContent("PORT={{port}}\nN={{n}}\n{{x}}\n",
		map[string]declaration.Var{"port": refVar("PORT"), "n": {JSON: []byte(`{"a": [1, 2]}`)}, "x": {Text: text("{{port}}")}},
		map[string]string{"port": "port"}))
	pp, err := Prepare(&plan.Plan{Changes: []plan.Change{c}}, func(n string) (string, bool) { return "8080", n == "PORT" }, ctxAlice)
	if err != nil {
		t.Fatal(err)
	}
	p := pp.Changes[0].Steps[0].Put
	want := "PORT=8080\nN={\"a\":[1,2]}\n{{port}}\n"
	if string(p.Content) != want || p.SHA512 != hexSum([]byte(want)) || p.Source != "" {
		t.Fatalf("put %q (%s), want %q", p.Content, p.SHA512, want)
	}
}

// TestPrepareTemplateRefuses checks that a value a template can't take is
// refused before anything runs, naming the variable, never the value.
func TestPrepareTemplateRefuses(t *testing.T) {
	c := fromChange("env", "/etc/app.env", templateContent("PORT={{port}}\n",
		map[string]declaration.Var{"port": refVar("PORT")}, map[string]string{"port": "port"}))
	for value, want := range map[string]string{
		"80\nSECRET=1": `resource "env": content.vars.port: the reference PORT resolves to a value holding a line break`,
		"80\rSECRET":   `resource "env": content.vars.port: the reference PORT resolves to a value holding a line break`,
		"80\x00SECRET": `resource "env": content.vars.port: the reference PORT resolves to a value holding a NUL`,
		"SECRET":       `resource "env": content.vars.port: resolves (through PORT) to a value that isn't of kind port`,
	} {
		_, err := Prepare(&plan.Plan{Changes: []plan.Change{c}}, func(string) (string, bool) { return value, true }, ctxAlice)
		var pe *PrepareError
		if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%q: error %v, want a PrepareError %q, without the value", value, err, want)
		}
	}
	_, err := Prepare(&plan.Plan{Changes: []plan.Change{c}}, noRefs, ctxAlice)
	if err == nil || !strings.Contains(err.Error(), "references PORT, which the plan's references block doesn't record") {
		t.Errorf("an unrecorded reference: %v", err)
	}
}

// sourceHost is a recorder that reads sources from a map.
type sourceHost struct {
	recorder
	files map[string][]byte
	got   *Put
}

func (h *sourceHost) ReadSource(_ context.Context, path string) ([]byte, error) {
	b, ok := h.files[path]
	if !ok {
		return nil, Errorf(events.Conflict, "is a symbolic link, not a regular file of its own")
	}
	return b, nil
}

func (h *sourceHost) Put(ctx context.Context, p *Put) error {
	h.got = p
	return h.recorder.Put(ctx, p)
}

// TestRunSource checks that a source put is resolved at Prepare, read when
// it runs, and put with the bytes read and their digest; a source that
// can't be read, or one over 16 MiB, fails the step with nothing put.
func TestRunSource(t *testing.T) {
	src := declaration.Concat(declaration.Part{Lit: "~/"}, declaration.Part{Env: "NAME"})
	c := fromChange("copy", "/srv/copy", declaration.Content{Type: declaration.ContentSource, Path: &src})
	lookup := func(n string) (string, bool) { return "orig.bin", n == "NAME" }
	data := []byte("\x00\xffbinary\r\n")
	h := &sourceHost{files: map[string][]byte{"/home/alice/orig.bin": data}}
	evs, res := runPlan(t, &plan.Plan{Changes: []plan.Change{c}}, h, lookup, nil)
	if res.OK != 1 || h.got == nil || !bytes.Equal(h.got.Content, data) || h.got.SHA512 != hexSum(data) {
		t.Fatalf("result %+v, put %+v\n%s", res, h.got, brief(evs))
	}

	for name, files := range map[string]map[string][]byte{
		"unreadable": {},
		"too large":  {"/home/alice/orig.bin": make([]byte, SourceLimit+1)},
	} {
		h := &sourceHost{files: files}
		evs, res := runPlan(t, &plan.Plan{Changes: []plan.Change{c}}, h, lookup, nil)
		if res.Failed != 1 || h.got != nil || len(h.did) != 0 {
			t.Errorf("%s: result %+v, put %v", name, res, h.did)
		}
		if e := evs[len(evs)-2]; e.Event != events.ChangeFailed || !strings.Contains(e.Error, "the source /home/alice/orig.bin ") || !strings.HasSuffix(e.Error, "; nothing was written") {
			t.Errorf("%s: %+v", name, e)
		}
	}

	// A host that can't read a source fails the step.
	r := &recorder{}
	_, res = runPlan(t, &plan.Plan{Changes: []plan.Change{c}}, r, lookup, nil)
	if res.Failed != 1 || len(r.did) != 0 {
		t.Errorf("a host with no source reads: %+v %v", res, r.did)
	}
}

func TestSourceBuffer(t *testing.T) {
	var b SourceBuffer
	chunk := make([]byte, 1<<20)
	for range 16 {
		b.Write(chunk)
	}
	if got, over := b.Bytes(); over || len(got) != SourceLimit {
		t.Fatalf("16 MiB: %d bytes, over %v", len(got), over)
	}
	b.Write([]byte{1, 2, 3})
	if got, over := b.Bytes(); !over || len(got) != SourceLimit+1 {
		t.Fatalf("past 16 MiB: %d bytes, over %v", len(got), over)
	}
}

func TestReadFailed(t *testing.T) {
	for _, c := range []struct {
		status int
		stderr string
		code   events.Code
		msg    string
	}{
		{94, "zap read: is a fifo, not a regular file of its own\n", events.Conflict, "is a fifo, not a regular file of its own"},
		{93, "zap read: is larger than 16 MiB\n", events.Permanent, "is larger than 16 MiB"},
		{95, "zap read: doesn't exist\n", events.NotFound, "doesn't exist"},
		{1, "sudo: a password is required\n", events.Permission, "can't be read: sudo refused: a password is required"},
		{1, "", events.Permanent, "can't be read: the read script exited 1"},
	} {
		err := ReadFailed(c.status, c.stderr)
		if code, _, _ := Classify(err); code != c.code || err.Error() != c.msg {
			t.Errorf("%d %q: %v (%s), want %q (%s)", c.status, c.stderr, err, code, c.msg, c.code)
		}
	}
}

// TestPrepareSourcePath checks that a source path resolves like a path
// field (references, ~), may be read from under /var/lib/zap, and is
// refused when it resolves to nothing absolute or under ~ with no home.
func TestPrepareSourcePath(t *testing.T) {
	prep := func(src declaration.Text, value string, c Context) (string, error) {
		ch := fromChange("copy", "/srv/copy", declaration.Content{Type: declaration.ContentSource, Path: &src})
		pp, err := Prepare(&plan.Plan{Changes: []plan.Change{ch}}, func(string) (string, bool) { return value, true }, c)
		if err != nil {
			return "", err
		}
		return pp.Changes[0].Steps[0].Put.Source, nil
	}
	ref := declaration.Ref("SRC")
	for value, want := range map[string]string{
		"/var/lib/zap/x": "/var/lib/zap/x",
		"~//a/b/":        "/home/alice/a/b",
		"$HOME/a":        "/home/alice/a",
	} {
		if got, err := prep(ref, value, ctxAlice); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", value, got, err, want)
		}
	}
	for value, want := range map[string]string{
		"relative": `content.path: "relative" must be absolute`,
		"/":        `content.path: "/" is not the absolute path of a file`,
		"":         `content.path: "" must be absolute`,
	} {
		if _, err := prep(ref, value, ctxAlice); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", value, err, want)
		}
	}
	if _, err := prep(ref, "~/x", Context{Remote: true}); err == nil || !strings.Contains(err.Error(), "the target declares no home") {
		t.Errorf("~ with no home: %v", err)
	}
}

// TestPrepareBytes checks that a bytes put places a project file's bytes
// as they are, NUL and invalid UTF-8 included, with their digest.
func TestPrepareBytes(t *testing.T) {
	raw := []byte{0x89, 'P', 'N', 'G', 0, 0xff, '\n'}
	b64 := "iVBORwD/Cg=="
	c := fromChange("logo", "/srv/logo.png", declaration.Content{Type: declaration.ContentBytes, Base64: &b64, File: "img/logo.png"})
	pp, err := Prepare(&plan.Plan{Changes: []plan.Change{c}}, noRefs, ctxAlice)
	if err != nil {
		t.Fatal(err)
	}
	p := pp.Changes[0].Steps[0].Put
	if !bytes.Equal(p.Content, raw) || p.SHA512 != hexSum(raw) || p.Source != "" {
		t.Fatalf("put %q (%s), want %q", p.Content, p.SHA512, raw)
	}
}
