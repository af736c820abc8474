package file

import (
	"context"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"

	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/textdiff"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// shown is r's diff as zap-detect makes it.
func shown(r detect.Result) string {
	d := r.DiffSides
	if d == nil {
		return r.Diff
	}
	return textdiff.Show(textdiff.Input{From: d.From, To: d.To, Current: d.Current, Absent: d.Absent, Size: d.Size,
		CurrentSHA512: d.CurrentSHA512, Desired: d.Desired, DesiredSize: d.DesiredSize, DesiredSHA512: d.DesiredSHA512,
		Mask: d.Mask, Secrets: d.Secrets, Fingerprint: d.Fingerprint})
}

func inlineFile(path, content string) *declaration.Resource {
	return &declaration.Resource{
		Common: declaration.Common{ID: "f", Type: declaration.KindFile},
		Body:   &declaration.File{Path: declaration.Lit(path), Content: declaration.Content{Type: declaration.ContentInline, Inline: &content}},
	}
}

// TestFileDiff: with Env.Diff a file's detector reads the text at its path
// after its verdict's reads, and its verdict is the same as without; the
// diff shows bytes only when they hash to what the digest read found.
func TestFileDiff(t *testing.T) {
	env := testEnv(nil)
	plain := Build(inlineFile("/etc/motd", "new\n"), env).(*File)
	env.Diff = true
	f := Build(inlineFile("/etc/motd", "new\n"), env).(*File)
	n := len(plain.Queries())
	q := f.Queries()
	if len(q) != n+1 || q[n].Op != detect.OpText || q[n].Path != "/etc/motd" || q[n].Limit != 256<<10 {
		t.Fatalf("queries with a diff: %+v", q)
	}
	old := "old\n"
	here := detect.Answer{Status: detect.StatusOK, SHA512: sha512Hex(old)}
	cases := []struct {
		name    string
		answers []detect.Answer
		want    string
	}{
		{"edited", []detect.Answer{here, isRegular, {Status: detect.StatusOK, Content: old}},
			"--- /etc/motd (target)\n+++ inline (config)\n@@ -1 +1 @@\n-old\n+new\n"},
		{"new", []detect.Answer{missing, missing, missing},
			"--- /etc/motd (target)\n+++ inline (config)\n@@ -0,0 +1 @@\n+new\n"},
		{"changed between the reads", []detect.Answer{here, isRegular, {Status: detect.StatusOK, Content: "other\n"}},
			"not shown: the text at the path changed while it was read\n"},
		{"a link at the path", []detect.Answer{notRegular(detect.TypeSymlink), isRegular, notRegular(detect.TypeSymlink)},
			"not shown: a symbolic link is at the path, and Zap reads nothing through it\n"},
		{"large", []detect.Answer{here, isRegular, {Status: detect.StatusOK, Over: true, Size: 10 << 20}},
			"binary or large: 10485760 bytes → 4 bytes, sha512 " + sha512Hex(old)[:16] + "… → " + sha512Hex("new\n")[:16] + "…\n"},
		{"converged", []detect.Answer{{Status: detect.StatusOK, SHA512: sha512Hex("new\n")}, isRegular, {Status: detect.StatusOK, Content: "new\n"}}, ""},
	}
	for _, c := range cases {
		got := f.Verdict(c.answers)
		if d := shown(got); d != c.want {
			t.Errorf("%s: diff %q, want %q", c.name, d, c.want)
		}
		want := plain.Verdict(c.answers[:n])
		if got.Verdict != want.Verdict || got.Reason != want.Reason || got.Seen != want.Seen || len(got.Drift) != len(want.Drift) {
			t.Errorf("%s: verdict %+v with a diff, %+v without", c.name, got, want)
		}
	}
}

// TestTemplateDiffMasksItsSecret: a template whose variable takes a secret
// shows the secret masked where it stands unchanged, and withholds the
// whole diff where the target's line in its place may hold another value.
func TestTemplateDiffMasksItsSecret(t *testing.T) {
	secret := "CANARYsecretValue99"
	env := testEnv(map[string]string{"TOKEN": secret}, "TOKEN")
	env.Mask = mask.New(map[string]string{"TOKEN": secret})
	env.Diff = true
	r := templateFile("host=a\nTOKEN={{t}}\n", map[string]declaration.Var{"t": ref("TOKEN")}, nil)
	f := Build(r, env).(*File)
	for _, c := range []struct {
		current, want string
	}{
		{"host=b\nTOKEN=" + secret + "\n", "--- /etc/app.env (target)\n+++ template (config)\n@@ -1,2 +1,2 @@\n-host=b\n+host=a\n TOKEN=[MASKED:TOKEN]\n"},
		{"host=a\nTOKEN=an-earlier-value\n", "content withheld: holds a secret (30 bytes → 33 bytes)\n"},
	} {
		a := []detect.Answer{{Status: detect.StatusOK, SHA512: sha512Hex(c.current)}, isRegular, {Status: detect.StatusOK, Content: c.current}}
		got := f.Verdict(a)
		if d := shown(got); got.Verdict != observation.Drifted || d != c.want || strings.Contains(d, secret) {
			t.Errorf("current %q: %s, diff %q, want %q", c.current, got.Verdict, d, c.want)
		}
	}
}

// TestPassCountsNoTextReads: a pass records the batches it ran with the
// same query counts with a diff's text reads as without them, so the
// last-run report is the same under --diff.
func TestPassCountsNoTextReads(t *testing.T) {
	host := hostFunc(func(lane observation.Lane, qs []detect.Query) []detect.Answer {
		a := make([]detect.Answer, len(qs))
		for i := range a {
			a[i] = missing
		}
		return a
	})
	env := testEnv(nil)
	plain := Build(inlineFile("/etc/motd", "x\n"), env)
	env.Diff = true
	withDiff := Build(inlineFile("/etc/motd", "x\n"), env)
	b1, r1 := detect.Pass(context.Background(), host, []detect.Detector{plain})
	b2, r2 := detect.Pass(context.Background(), host, []detect.Detector{withDiff})
	if len(b1) != 1 || len(b2) != 1 || b1[0] != b2[0] {
		t.Errorf("batches %+v without a diff, %+v with", b1, b2)
	}
	if r1[0].Verdict != r2[0].Verdict || shown(r2[0]) == "" {
		t.Errorf("results %+v, %+v", r1[0], r2[0])
	}
}
