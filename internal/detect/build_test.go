package detect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

func testEnv(vars map[string]string, secrets ...string) Env {
	return Env{
		Home:  "/home/ops",
		Value: func(n string) string { return vars[n] },
		Secret: func(n string) bool {
			for _, s := range secrets {
				if s == n {
					return true
				}
			}
			return false
		},
	}
}

// TestResolvePaths: a path field resolves its references, then ~ and
// $HOME, its trailing slashes cut, shown as written where a secret is in
// it; one that can't be used gives a reason naming the reference, never
// its value.
func TestResolvePaths(t *testing.T) {
	env := testEnv(map[string]string{
		"APP":   "/srv/app",
		"REL":   "srv/app",
		"NL":    "/srv/a\nb",
		"CR":    "/srv/a\rb",
		"MARK":  "/srv/\uFDD0x",
		"TILDE": "~/app",
		"KEY":   "s3cret",
	}, "KEY")
	ref := declaration.Ref
	cases := []struct {
		name   string
		path   declaration.Text
		want   string // the resolved path
		shown  string
		reason string // or the hold
	}{
		{"absolute", declaration.Lit("/etc/motd"), "/etc/motd", "/etc/motd", ""},
		{"tilde", declaration.Lit("~/x"), "/home/ops/x", "/home/ops/x", ""},
		{"tilde alone", declaration.Lit("~"), "/home/ops", "/home/ops", ""},
		{"$HOME", declaration.Lit("$HOME/x"), "/home/ops/x", "/home/ops/x", ""},
		{"trailing slash", declaration.Lit("/srv/x/"), "/srv/x", "/srv/x", ""},
		{"reference", ref("APP"), "/srv/app", "/srv/app", ""},
		{"reference inside", declaration.Concat(declaration.Part{Lit: "/srv/"}, declaration.Part{Env: "KEY"}), "/srv/s3cret", "/srv/{env:KEY}", ""},
		{"reference to a path under ~", ref("TILDE"), "/home/ops/app", "/home/ops/app", ""},
		{"unset", ref("NOPE"), "", "", "path: the reference NOPE is unset or empty, so the path isn't absolute"},
		{"relative", ref("REL"), "", "", "path: the reference REL resolves to a path that isn't absolute (nor under ~)"},
		{"line feed", ref("NL"), "", "", "path: the reference NL resolves to a value holding a line break or NUL, which Zap won't use here"},
		{"carriage return", declaration.Concat(declaration.Part{Lit: "/x/"}, declaration.Part{Env: "CR"}), "", "", "path: the reference CR resolves to a value holding a line break or NUL, which Zap won't use here"},
		{"marker", ref("MARK"), "", "", "path: the reference MARK resolves to a value holding a reference marker character (U+FDD0 or U+FDD1)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, shown, reason := resolvePath("path", c.path, env)
			if reason != c.reason {
				t.Fatalf("reason:\n got %q\nwant %q", reason, c.reason)
			}
			if strings.Contains(reason, "srv/a") {
				t.Errorf("the reason shows the value")
			}
			if path != c.want || shown != c.shown {
				t.Errorf("path %q shown %q, want %q and %q", path, shown, c.want, c.shown)
			}
		})
	}
}

func TestCommandScript(t *testing.T) {
	c := &Command{Text: "echo \"$A$B\" > out", Cwd: "/tmp/it's here", Env: []Var{{"A", "x'y"}, {"B", "$HOME `z`"}}}
	want := "cd -- '/tmp/it'\\''s here' || exit\n" +
		"export A='x'\\''y'\n" +
		"export B='$HOME `z`'\n" +
		"{\necho \"$A$B\" > out\n} </dev/null\n"
	if got := c.Script(); got != want {
		t.Errorf("script:\n%s\nwant:\n%s", got, want)
	}
	// The shell reads the values back byte for byte.
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	c = &Command{Text: `printf '%s|%s' "$A" "$B"`, Env: []Var{{"A", "x'y\n'"}, {"B", "$HOME `z` \\"}}}
	cmd := exec.Command(sh, "-s")
	cmd.Stdin = strings.NewReader(c.Script())
	out, err := cmd.Output()
	if err != nil || string(out) != "x'y\n'|$HOME `z` \\" {
		t.Errorf("sh printed %q (%v)", out, err)
	}
}

type fakeHost struct {
	answers map[observation.Lane][]Answer
	fail    map[observation.Lane]error
}

func (h *fakeHost) Answer(_ context.Context, lane observation.Lane, qs []Query) ([]Answer, error) {
	if err := h.fail[lane]; err != nil {
		return nil, err
	}
	return h.answers[lane], nil
}

// reads is a detector of the given queries whose verdict, for answers that
// are want, is got, and holds otherwise: a file's, a directory's and a
// link's reads, say (their kinds' folders import this package).
type reads struct {
	queries []Query
	want    []Answer
	got     Result
}

func (r *reads) Queries() []Query { return r.queries }

func (r *reads) Verdict(a []Answer) Result {
	if !reflect.DeepEqual(a, r.want) {
		return hold(fmt.Sprintf("answers %+v, want %+v", a, r.want))
	}
	return r.got
}

func TestPass(t *testing.T) {
	file := &reads{queries: []Query{{Op: OpDigest, Lane: observation.LaneElevated, Path: "/f"}, {Op: OpType, Lane: observation.LaneElevated, Path: "/f"}},
		want: []Answer{digestOK, isRegular}, got: converged()}
	dir := &reads{queries: []Query{{Op: OpType, Lane: observation.LaneLogin, Path: "/d"}, {Op: OpStat, Lane: observation.LaneElevated, Path: "/d"}},
		want: []Answer{isDir, stat(TypeDirectory, 0o700, "root", "root")}, got: drifted([]observation.Difference{diff("mode", "700", "755")})}
	link := &reads{queries: []Query{{Op: OpReadlink, Lane: observation.LaneLogin, Path: "/l"}}, want: []Answer{{Status: StatusOK, Target: "/t"}}, got: converged()}
	ds := []Detector{file, dir, Held("no"), link}
	host := &fakeHost{answers: map[observation.Lane][]Answer{
		// login: dir type, link readlink
		observation.LaneLogin: {isDir, {Status: StatusOK, Target: "/t"}},
		// elevated: file digest, file type, dir stat
		observation.LaneElevated: {digestOK, isRegular, stat(TypeDirectory, 0o700, "root", "root")},
	}}
	batches, results := Pass(context.Background(), host, ds)
	wantBatches := []observation.Batch{{Lane: observation.LaneLogin, Queries: 2}, {Lane: observation.LaneElevated, Queries: 3}}
	if !reflect.DeepEqual(batches, wantBatches) {
		t.Errorf("batches %+v, want %+v", batches, wantBatches)
	}
	want := []Result{converged(), drifted([]observation.Difference{diff("mode", "700", "755")}), hold("no"), converged()}
	if !reflect.DeepEqual(results, want) {
		t.Errorf("results:\n got %+v\nwant %+v", results, want)
	}

	// A lane that fails holds every resource with a read in it, and only those.
	host.fail = map[observation.Lane]error{observation.LaneElevated: errors.New("sudo authentication failed")}
	_, results = Pass(context.Background(), host, ds)
	reason := "the elevated reads failed: sudo authentication failed"
	want = []Result{hold(reason), hold(reason), hold("no"), converged()}
	if !reflect.DeepEqual(results, want) {
		t.Errorf("results with a failed lane:\n got %+v\nwant %+v", results, want)
	}

	// Answers that don't line up with the reads are not read at all.
	host.fail = nil
	host.answers[observation.LaneLogin] = host.answers[observation.LaneLogin][:1]
	_, results = Pass(context.Background(), host, ds)
	if results[3].Verdict != observation.Undetermined || results[1].Verdict != observation.Undetermined {
		t.Errorf("a short login batch: %+v", results)
	}

	// Nothing to read runs no batch.
	batches, _ = Pass(context.Background(), host, []Detector{Held("x")})
	if batches == nil || len(batches) != 0 {
		t.Errorf("batches %#v, want an empty list", batches)
	}
}

// TestWireForm checks queries and answers survive JSON, the form a batch
// can travel in to another host.
func TestWireForm(t *testing.T) {
	qs := []Query{
		{Op: OpDigest, Lane: observation.LaneElevated, Path: "/etc/motd"},
		{Op: OpCommand, Lane: observation.LaneLogin, Command: &Command{Text: "true", Cwd: "/", Env: []Var{{"A", "it's"}}, Timeout: 30}},
	}
	as := []Answer{
		{Status: StatusOK, Type: TypeRegular, Mode: 0, Owner: "root", Group: "root"},
		{Status: StatusHardLinked, Links: 3},
		{Status: StatusOK, Exit: 1},
	}
	for _, v := range []any{&qs, &as} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		back := reflect.New(reflect.TypeOf(v).Elem())
		if err := json.Unmarshal(data, back.Interface()); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Elem().Interface(), reflect.ValueOf(v).Elem().Interface()) {
			t.Errorf("%s decodes to %+v", data, back.Elem().Interface())
		}
	}
}
