package batch

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/observation"
)

// shells are the shells a batch must run under; each present one is tried.
var shells = [][]string{{"dash"}, {"busybox", "sh"}, {"bash", "--posix"}}

func runShell(t *testing.T, sh []string, script string, env []string) []byte {
	t.Helper()
	cmd := exec.Command(sh[0], sh[1:]...)
	cmd.Stdin = strings.NewReader(script)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v", sh[0], err)
	}
	return out.Bytes()
}

func eachShell(t *testing.T, f func(t *testing.T, sh []string)) {
	ran := 0
	for _, sh := range shells {
		if _, err := exec.LookPath(sh[0]); err != nil {
			t.Logf("no %s here: not tried", sh[0])
			continue
		}
		ran++
		t.Run(sh[0], func(t *testing.T) { f(t, sh) })
	}
	if ran == 0 {
		t.Fatal("no shell to run the batch under")
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func pathEnv() []string { return []string{"PATH=" + os.Getenv("PATH")} }

// answerEach makes the batch of qs, runs it under each shell with the
// test's PATH and hands check the answers it parses to.
func answerEach(t *testing.T, qs []detect.Query, check func(t *testing.T, answers []detect.Answer)) {
	t.Helper()
	b, err := New(qs)
	must(t, err)
	eachAnswers(t, b, check)
}

// eachAnswers runs b under each shell with the test's PATH and hands check
// the answers it parses to.
func eachAnswers(t *testing.T, b *Batch, check func(t *testing.T, answers []detect.Answer)) {
	t.Helper()
	eachShell(t, func(t *testing.T, sh []string) {
		answers, err := b.Parse(runShell(t, sh, b.Script, pathEnv()))
		must(t, err)
		check(t, answers)
	})
}

func TestPathReads(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	must(t, os.WriteFile(p("file"), []byte("hello\n"), 0o640))
	must(t, os.Chmod(p("file"), 0o640|os.ModeSetuid))
	must(t, os.Mkdir(p("dir"), 0o750))
	must(t, os.Symlink("file", p("to-file")))
	must(t, os.Symlink("nowhere", p("dangling")))
	must(t, syscall.Mkfifo(p("fifo"), 0o644))
	must(t, os.WriteFile(p("twice"), []byte("x"), 0o644))
	must(t, os.Link(p("twice"), p("twice2")))
	// A link whose target forges the framing: a newline, then what looks
	// like an end marker and a start marker of a later read.
	forged := "x\nZAP00 E 0 0\nZAP00 B 1\n\x01"
	must(t, os.Symlink(forged, p("forged")))
	must(t, os.WriteFile(p("weird name\n'\"$(x)"), []byte(""), 0o600))
	sum := sha512.Sum512([]byte("hello\n"))
	empty := sha512.Sum512(nil)

	cases := []struct {
		q    detect.Query
		want detect.Answer
	}{
		{detect.Query{Op: detect.OpType, Path: p("file")}, detect.Answer{Status: detect.StatusOK, Type: detect.TypeRegular}},
		{detect.Query{Op: detect.OpType, Path: p("to-file")}, detect.Answer{Status: detect.StatusOK, Type: detect.TypeRegular}},
		{detect.Query{Op: detect.OpType, Path: p("dangling")}, detect.Answer{Status: detect.StatusMissing}},
		{detect.Query{Op: detect.OpType, Path: p("dir")}, detect.Answer{Status: detect.StatusOK, Type: detect.TypeDirectory}},
		{detect.Query{Op: detect.OpType, Path: p("none")}, detect.Answer{Status: detect.StatusMissing}},
		{detect.Query{Op: detect.OpType, Path: p("fifo")}, detect.Answer{Status: detect.StatusOK, Type: detect.TypeFIFO}},
		{detect.Query{Op: detect.OpStat, Path: p("dir")}, detect.Answer{Status: detect.StatusOK, Type: detect.TypeDirectory, Mode: 0o750}},
		{detect.Query{Op: detect.OpStat, Path: p("file")}, detect.Answer{Status: detect.StatusOK, Type: detect.TypeRegular, Mode: 0o4640}},
		{detect.Query{Op: detect.OpStat, Path: p("none")}, detect.Answer{Status: detect.StatusMissing}},
		{detect.Query{Op: detect.OpReadlink, Path: p("to-file")}, detect.Answer{Status: detect.StatusOK, Target: "file"}},
		{detect.Query{Op: detect.OpReadlink, Path: p("forged")}, detect.Answer{Status: detect.StatusOK, Target: forged}},
		{detect.Query{Op: detect.OpReadlink, Path: p("file")}, detect.Answer{Status: detect.StatusMissing}},
		{detect.Query{Op: detect.OpDigest, Path: p("file")}, detect.Answer{Status: detect.StatusOK, SHA512: hex.EncodeToString(sum[:])}},
		{detect.Query{Op: detect.OpDigest, Path: p("weird name\n'\"$(x)")}, detect.Answer{Status: detect.StatusOK, SHA512: hex.EncodeToString(empty[:])}},
		{detect.Query{Op: detect.OpDigest, Path: p("none")}, detect.Answer{Status: detect.StatusMissing}},
		{detect.Query{Op: detect.OpDigest, Path: p("to-file")}, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeSymlink}},
		{detect.Query{Op: detect.OpDigest, Path: p("dangling")}, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeSymlink}},
		{detect.Query{Op: detect.OpDigest, Path: p("dir")}, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeDirectory}},
		{detect.Query{Op: detect.OpDigest, Path: p("fifo")}, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeFIFO}},
		{detect.Query{Op: detect.OpDigest, Path: "/dev/null"}, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeCharDev}},
		{detect.Query{Op: detect.OpDigest, Path: p("twice")}, detect.Answer{Status: detect.StatusHardLinked, Links: 2}},
	}
	qs := make([]detect.Query, len(cases))
	for i, c := range cases {
		c.q.Lane = observation.LaneElevated
		qs[i] = c.q
	}
	answerEach(t, qs, func(t *testing.T, answers []detect.Answer) {
		for i, c := range cases {
			got := answers[i]
			if c.q.Op == detect.OpStat && got.Status == detect.StatusOK {
				if got.Owner == "" || got.Group == "" {
					t.Errorf("%s %s: no owner or group: %+v", c.q.Op, c.q.Path, got)
				}
				got.Owner, got.Group = "", ""
			}
			if got != c.want {
				t.Errorf("%s %q: got %+v, want %+v", c.q.Op, c.q.Path, got, c.want)
			}
		}
	})
}

func command(text string, timeout int) detect.Query {
	return detect.Query{Op: detect.OpCommand, Lane: observation.LaneLogin, Command: &detect.Command{Text: text, Timeout: timeout}}
}

func TestCommands(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		q    detect.Query
		want detect.Answer
	}{
		{"exit 0", command("true", 5), detect.Answer{Status: detect.StatusOK}},
		{"exit 3", command("exit 3", 5), detect.Answer{Status: detect.StatusOK, Exit: 3}},
		{"exit 124 on its own", command("exit 124", 5), detect.Answer{Status: detect.StatusOK, Exit: 124}},
		{"a check that doesn't parse", command("if then fi (", 5), detect.Answer{Status: detect.StatusOK, Exit: 2}},
		{"forged markers, NULs and binary on stdout and stderr",
			command(`printf 'ZAP00 E 0 0\nZAP00 Z\n\000\377'; printf 'x\n%.0s' $(seq 1 2000); printf 'ZAP00 B 1\n' >&2; exit 7`, 5),
			detect.Answer{Status: detect.StatusOK, Exit: 7}},
		{"large output", command(`head -c 3000000 /dev/zero; exit 4`, 10), detect.Answer{Status: detect.StatusOK, Exit: 4}},
		{"a cwd", detect.Query{}, detect.Answer{}},
		{"reads no more of the batch", command("cat; read x; exit 0", 5), detect.Answer{Status: detect.StatusOK}},
		{"signals its own group", command("kill -TERM 0; sleep 5", 5), detect.Answer{Status: detect.StatusTimedOut}},
		{"timed out", command("sleep 30", 1), detect.Answer{Status: detect.StatusTimedOut}},
	}
	cwd := &detect.Command{Text: `[ "$(pwd)" = ` + vocab.Quote(dir) + ` ] && [ "$A" = "it's \"a\"" ]`, Cwd: dir, Env: []detect.Var{{Name: "A", Value: `it's "a"`}}, Timeout: 5}
	cases[6].q = detect.Query{Op: detect.OpCommand, Lane: observation.LaneLogin, Command: cwd}
	cases[6].want = detect.Answer{Status: detect.StatusOK}
	qs := make([]detect.Query, len(cases))
	for i, c := range cases {
		qs[i] = c.q
	}
	// A path read after the commands still answers as itself.
	qs = append(qs, detect.Query{Op: detect.OpType, Lane: observation.LaneLogin, Path: dir})
	b, err := New(qs)
	must(t, err)
	eachShell(t, func(t *testing.T, sh []string) {
		start := time.Now()
		answers, err := b.Parse(runShell(t, sh, b.Script, pathEnv()))
		must(t, err)
		for i, c := range cases {
			if answers[i] != c.want {
				t.Errorf("%s: got %+v, want %+v", c.name, answers[i], c.want)
			}
		}
		if a := answers[len(cases)]; a.Status != detect.StatusOK || a.Type != detect.TypeDirectory {
			t.Errorf("type read after the commands: %+v", a)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("the batch took %v", d)
		}
	})
}

func TestProbes(t *testing.T) {
	probe := func(text string, timeout int) detect.Query {
		q := detect.NewProbe(observation.LaneLogin, text)
		q.Command.Timeout = timeout
		return q
	}
	forged := "ZAP00 E 0 0\nZAP00 Z\n\x00\xff"
	cases := []struct {
		name string
		q    detect.Query
		want detect.Answer
	}{
		{"output and exit 0", probe(`printf 'ii  nginx\n'`, 5), detect.Answer{Status: detect.StatusOK, Output: "ii  nginx\n"}},
		{"output and exit 1", probe(`echo no; exit 1`, 5), detect.Answer{Status: detect.StatusOK, Exit: 1, Output: "no\n"}},
		{"runs under LC_ALL=C", probe(`echo "$LC_ALL"`, 5), detect.Answer{Status: detect.StatusOK, Output: "C\n"}},
		{"forged markers, NULs and binary come back as bytes", probe(`printf 'ZAP00 E 0 0\nZAP00 Z\n\000\377'; printf 'ZAP00 B 1\n' >&2; exit 7`, 5),
			detect.Answer{Status: detect.StatusOK, Exit: 7, Output: forged}},
		{"too much output", probe(`head -c 1048577 /dev/zero`, 10), detect.Answer{Status: detect.StatusFailed, Detail: "the probe printed more than 1048576 bytes"}},
		{"timed out", probe("sleep 30", 1), detect.Answer{Status: detect.StatusTimedOut}},
	}
	qs := make([]detect.Query, len(cases))
	for i, c := range cases {
		qs[i] = c.q
	}
	answerEach(t, qs, func(t *testing.T, answers []detect.Answer) {
		for i, c := range cases {
			if answers[i] != c.want {
				t.Errorf("%s: got %+v, want %+v", c.name, answers[i], c.want)
			}
		}
	})
}

func TestMissingTool(t *testing.T) {
	// A PATH with every tool but readlink.
	bin := t.TempDir()
	for _, tool := range []string{"timeout", "base64", "tr", "head", "cat", "stat", "setsid", "sh"} {
		p, err := exec.LookPath(tool)
		must(t, err)
		must(t, os.Symlink(p, filepath.Join(bin, tool)))
	}
	b, err := New([]detect.Query{{Op: detect.OpType, Lane: observation.LaneLogin, Path: "/"}})
	must(t, err)
	_, err = b.Parse(runShell(t, []string{"dash"}, b.Script, []string{"PATH=" + bin}))
	var mt *MissingToolError
	if !errors.As(err, &mt) || mt.Tool != "readlink" {
		t.Fatalf("got %v, want readlink missing", err)
	}
}

func TestParseRefuses(t *testing.T) {
	qs := []detect.Query{
		{Op: detect.OpType, Lane: observation.LaneLogin, Path: "/a"},
		{Op: detect.OpReadlink, Lane: observation.LaneLogin, Path: "/b"},
	}
	b, err := Build("00ff", qs)
	must(t, err)
	// The type read's group: "e\n41ed root root\n", in base64.
	ok := "ZAP00ff H\nZAP00ff B 0\nZQo0MWVkIHJvb3Qgcm9vdAo=\nZAP00ff E 0 0\nZAP00ff B 1\nZAP00ff E 1 1\nZAP00ff Z\n"
	answers, err := b.Parse([]byte(ok))
	must(t, err)
	if answers[0].Type != detect.TypeDirectory || answers[1].Status != detect.StatusMissing {
		t.Fatalf("answers: %+v", answers)
	}
	if _, err := b.Parse([]byte("motd\n" + ok)); err != nil {
		t.Errorf("noise before the start marker: %v", err)
	}
	cases := []struct {
		name, out, want string
	}{
		{"empty", "", "no start marker"},
		{"another nonce", strings.ReplaceAll(ok, "00ff", "00fe"), "no start marker"},
		{"stopped after an answer", ok[:strings.Index(ok, "ZAP00ff B 1")], "stopped before its end marker"},
		{"stopped inside an answer", ok[:strings.Index(ok, "ZAP00ff E 0")], "stopped before its end marker"},
		{"no end marker", strings.TrimSuffix(ok, "ZAP00ff Z\n"), "stopped before its end marker"},
		{"an answer missing", strings.Replace(ok, "ZAP00ff B 1\nZAP00ff E 1 1\n", "", 1), "read 1 has no answer"},
		{"answers out of order", strings.Replace(ok, "B 0", "B 1", 1), "read 0 has no answer"},
		{"an end for another read", strings.Replace(ok, "E 0 0", "E 1 0", 1), "read 0 has no answer"},
		{"an answer too many", strings.Replace(ok, "ZAP00ff Z", "ZAP00ff B 2\nZAP00ff E 2 0\nZAP00ff Z", 1), "more answers than its 2 reads"},
		{"a raw line inside an answer", strings.Replace(ok, "ZQo0MWVkIHJvb3Qgcm9vdAo=", "ZAP00fe E 0 0\nZQo0MWVkIHJvb3Qgcm9vdAo=", 1), "garbled"},
		{"hex where base64 goes", strings.Replace(ok, "ZQo0MWVkIHJvb3Qgcm9vdAo=", " 65 0a 34", 1), "garbled"},
		{"base64 that doesn't decode", strings.Replace(ok, "ZQo0MWVkIHJvb3Qgcm9vdAo=", "ZQo0MWVkIHJvb3Qgcm9vdAo", 1), "garbled"},
		{"a status that isn't a number", strings.Replace(ok, "E 0 0", "E 0 x", 1), "garbled"},
		{"output past the end", ok + "more\n", "past its end marker"},
		{"an unknown tool", "ZAP00ff H\nZAP00ff M rm\n", "garbled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := b.Parse([]byte(c.out))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
			if err != nil && strings.Contains(err.Error(), "ZAP") {
				t.Errorf("the error quotes the output: %v", err)
			}
		})
	}
}

func TestDeadline(t *testing.T) {
	b, err := Build("00", []detect.Query{command("true", 30), {Op: detect.OpType, Path: "/"}})
	must(t, err)
	if got, want := b.Deadline(), margin+31*time.Second+11*time.Second; got != want {
		t.Errorf("deadline %v, want %v", got, want)
	}
}

// files writes n files of their own content under a new directory and
// returns their paths and digests.
func files(t testing.TB, n int) ([]string, []string) {
	dir := t.TempDir()
	paths, sums := make([]string, n), make([]string, n)
	for i := range n {
		content := []byte(strings.Repeat("file "+strconv.Itoa(i)+"\n", 40))
		paths[i] = filepath.Join(dir, "f"+strconv.Itoa(i))
		must(t, os.WriteFile(paths[i], content, 0o644))
		sum := sha512.Sum512(content)
		sums[i] = hex.EncodeToString(sum[:])
	}
	return paths, sums
}

// converged is the queries a converged file resource reads, for each path.
func converged(paths []string) []detect.Query {
	var qs []detect.Query
	for _, p := range paths {
		qs = append(qs,
			detect.Query{Op: detect.OpType, Lane: observation.LaneElevated, Path: p},
			detect.Query{Op: detect.OpStat, Lane: observation.LaneElevated, Path: p},
			detect.Query{Op: detect.OpDigest, Lane: observation.LaneElevated, Path: p})
	}
	return qs
}

// TestGroups checks that reads past one group's size and past one window
// of content reads, interleaved, with paths missing among them and paths
// whose content isn't read, each answer as themselves.
func TestGroups(t *testing.T) {
	paths, sums := files(t, groupPaths+100)
	for i := 0; i < len(paths); i += 7 {
		must(t, os.Remove(paths[i]))
	}
	var qs []detect.Query
	for f, q := range converged(paths) {
		// Every fifth path's content isn't read.
		if q.Op == detect.OpDigest && (f/3)%5 == 1 {
			q.Op = detect.OpStat
		}
		qs = append(qs, q)
	}
	b, err := New(qs)
	must(t, err)
	if len(b.units) != 2 {
		t.Fatalf("%d reads in %d units, want 2 groups", len(qs), len(b.units))
	}
	// With bash on the target, a group opens a window's files in one
	// shell; without it, seven to a subshell.
	noBash := t.TempDir()
	for _, tool := range append(Tools(qs), "sh") {
		p, err := exec.LookPath(tool)
		must(t, err)
		must(t, os.Symlink(p, filepath.Join(noBash, tool)))
	}
	// A bash that can't name a descriptor past 9 (here dash under its name)
	// leaves the windows to the subshells.
	oldBash := t.TempDir()
	for _, tool := range append(Tools(qs), "sh") {
		p, err := exec.LookPath(tool)
		must(t, err)
		must(t, os.Symlink(p, filepath.Join(oldBash, tool)))
	}
	dash, err := exec.LookPath("dash")
	must(t, err)
	must(t, os.Symlink(dash, filepath.Join(oldBash, "bash")))
	for _, env := range [][]string{pathEnv(), {"PATH=" + noBash}, {"PATH=" + oldBash}} {
		eachShell(t, func(t *testing.T, sh []string) {
			checkGroups(t, qs, sums, b.Parse, runShell(t, sh, b.Script, env))
		})
	}
}

func checkGroups(t *testing.T, qs []detect.Query, sums []string, parse func([]byte) ([]detect.Answer, error), out []byte) {
	t.Helper()
	{
		answers, err := parse(out)
		must(t, err)
		for i, q := range qs {
			f := i / 3
			got := answers[i]
			if f%7 == 0 {
				if got.Status != detect.StatusMissing {
					t.Errorf("%s %d (removed): %+v", q.Op, f, got)
				}
				continue
			}
			ok := got.Status == detect.StatusOK
			switch q.Op {
			case detect.OpType:
				ok = ok && got.Type == detect.TypeRegular
			case detect.OpStat:
				ok = ok && got.Type == detect.TypeRegular && got.Mode == 0o644 && got.Owner != ""
			case detect.OpDigest:
				ok = ok && got.SHA512 == sums[f]
			}
			if !ok {
				t.Errorf("%s %d: %+v", q.Op, f, got)
			}
		}
	}
}

// TestGroupOutputRefused checks that a group's output that doesn't line up
// with its paths fails every read in it, and that a group that timed out
// times out every read.
func TestGroupOutputRefused(t *testing.T) {
	qs := []detect.Query{
		{Op: detect.OpStat, Path: "/a"}, {Op: detect.OpStat, Path: "/b"},
		{Op: detect.OpDigest, Path: "/a"}, {Op: detect.OpDigest, Path: "/b"},
	}
	b, err := Build("00", qs)
	must(t, err)
	if len(b.units) != 1 || b.units[0].digests != 2 {
		t.Fatalf("units: %+v", b.units)
	}
	sum := strings.Repeat("ab", 64)
	const (
		ok       = detect.StatusOK
		missing  = detect.StatusMissing
		fail     = detect.StatusFailed
		timedOut = detect.StatusTimedOut
	)
	all := func(s detect.Status) []detect.Status { return []detect.Status{s, s, s, s} }
	for _, c := range []struct {
		name string
		code int
		out  string
		want []detect.Status // stat a, stat b, content a, content b
	}{
		{"one there, one missing", 0, "em\n81a4 root root\no 9 1:3\n81a4 1\n" + sum + "  /proc/9/fd/3\n",
			[]detect.Status{ok, missing, ok, missing}},
		{"hard linked, denied", 0, "ee\n81a4 root root\n81a4 root root\no 9 1:3\nd 2\n81a4 2\n",
			[]detect.Status{ok, ok, detect.StatusHardLinked, detect.StatusDenied}},
		{"a directory and a link", 0, "eL\n41ed root root\na1ff root root\n81a4\n",
			[]detect.Status{ok, ok, detect.StatusNotRegular, detect.StatusNotRegular}},
		{"an owner name with a space", 0, "mL\na1ff ro ot root\n81a4\n",
			[]detect.Status{missing, fail, missing, detect.StatusNotRegular}},
		{"a name with a newline", 0, "ee\n81a4 ro\not root\n81a4 root root\n", all(fail)},
		{"a line short", 0, "ee\n81a4 root root\n", all(fail)},
		{"a regular file with no record", 0, "ee\n81a4 root root\n41ed root root\n", all(fail)},
		{"a link the test saw as a file", 0, "ee\na1ff root root\n41ed root root\n", all(fail)},
		{"a sum of a hard link", 0, "em\n81a4 root root\no 9 1:3\n81a4 2\n" + sum + "  /proc/9/fd/3\n", all(fail)},
		{"a sum for another descriptor", 0, "em\n81a4 root root\no 9 1:3\n81a4 1\n" + sum + "  /proc/9/fd/4\n", all(fail)},
		{"a sum too many", 0, "em\n81a4 root root\no 9 1:3\n81a4 1\n" + sum + "  /proc/9/fd/3\n" + sum + "  /proc/9/fd/3\n", all(fail)},
		{"a path opened twice", 0, "ee\n81a4 root root\n81a4 root root\no 9 1:3 1:4\n81a4 1\n81a4 1\n", all(fail)},
		{"a descriptor given twice", 0, "ee\n81a4 root root\n81a4 root root\no 9 1:3 2:3\n81a4 1\n81a4 1\n", all(fail)},
		{"a descriptor below 3", 0, "em\n81a4 root root\no 9 1:1\n81a4 1\n" + sum + "  /proc/9/fd/1\n", all(fail)},
		{"descriptors past 9, one line", 0, "ee\n81a4 root root\n81a4 root root\no 9 1:10 2:11\n81a4 1\n81a4 1\n" + sum + "  /proc/9/fd/10\n" + sum + "  /proc/9/fd/11\n", []detect.Status{ok, ok, ok, ok}},
		{"a pid that isn't one", 0, "em\n81a4 root root\no 9/fd/3/../.. 1:3\n81a4 1\n" + sum + "  /proc/9/fd/3/../../fd/3\n", all(fail)},
		{"a record of a third path", 0, "mm\nd 3\n", all(fail)},
		{"a record of a path not there", 0, "mm\nd 1\n", all(fail)},
		{"exited 1", 1, "ee\n81a4 root root\n81a4 root root\n", all(fail)},
		{"exited 3", 3, "mm\n", all(fail)},
		{"timed out", 124, "e", all(timedOut)},
	} {
		t.Run(c.name, func(t *testing.T) {
			answers := make([]detect.Answer, len(qs))
			b.answerUnit(answers, b.units[0], c.code, []byte(c.out))
			for i, a := range answers {
				if a.Status != c.want[i] {
					t.Errorf("%s %s: %+v, want %s", qs[i].Op, qs[i].Path, a, c.want[i])
				}
			}
		})
	}
}

// BenchmarkConverged200 runs the batch of 200 converged files' reads
// (type, stat and content) under sh, no ssh: it should take well under a
// second.
func BenchmarkConverged200(b *testing.B) {
	paths, _ := files(b, 200)
	batch, err := New(converged(paths))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		cmd := exec.Command("sh")
		cmd.Stdin = strings.NewReader(batch.Script)
		out, err := cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		answers, err := batch.Parse(out)
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range answers {
			if a.Status != detect.StatusOK {
				b.Fatalf("%+v", a)
			}
		}
	}
}

// TestBusyBoxTimeout checks that a probe stopped at its limit by BusyBox's
// timeout, which signals only its command and not the command's process
// group, leaves nothing behind holding the batch: what the probe started is
// killed with it, and the batch answers.
func TestBusyBoxTimeout(t *testing.T) {
	bb, err := exec.LookPath("busybox")
	if err != nil {
		t.Skip("no busybox here: its timeout can't be tried")
	}
	bin := t.TempDir()
	for _, tool := range []string{"base64", "tr", "head", "cat", "stat", "readlink", "setsid", "sh", "sleep", "sha512sum"} {
		p, err := exec.LookPath(tool)
		must(t, err)
		must(t, os.Symlink(p, filepath.Join(bin, tool)))
	}
	must(t, os.WriteFile(filepath.Join(bin, "timeout"), []byte("#!/bin/sh\nexec "+bb+" timeout \"$@\"\n"), 0o755))
	// A probe whose child outlives it, holding its stdout, its PID written
	// down; left alone the child would hold the batch for 300 s.
	pidFile := filepath.Join(t.TempDir(), "child")
	left := "sleep 300 & echo $! > " + vocab.Quote(pidFile) + "; sleep 300"
	qs := []detect.Query{
		func() detect.Query {
			q := detect.NewProbe(observation.LaneLogin, left)
			q.Command.Timeout = 1
			return q
		}(),
		{Op: detect.OpType, Lane: observation.LaneLogin, Path: "/"},
	}
	b, err := New(qs)
	must(t, err)
	eachShell(t, func(t *testing.T, sh []string) {
		os.Remove(pidFile)
		cmd := exec.Command(sh[0], sh[1:]...)
		cmd.Stdin = strings.NewReader(b.Script)
		cmd.Env = []string{"PATH=" + bin}
		var out []byte
		done := make(chan error, 1)
		go func() {
			var err error
			out, err = cmd.Output()
			done <- err
		}()
		select {
		case err := <-done:
			must(t, err)
		case <-time.After(60 * time.Second):
			// A guard, not a bound: the probe's limit is 1 s.
			t.Fatalf("the batch hasn't answered a minute on: what the probe left running holds it")
		}
		answers, err := b.Parse(out)
		must(t, err)
		if answers[0].Status != detect.StatusTimedOut {
			t.Errorf("probe: %+v, want timed out", answers[0])
		}
		if answers[1].Status != detect.StatusOK || answers[1].Type != detect.TypeDirectory {
			t.Errorf("type read after it: %+v", answers[1])
		}
		data, err := os.ReadFile(pidFile)
		must(t, err)
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		must(t, err)
		if !gone(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the probe's child (pid %d) lived on after the batch answered", pid)
		}
	})
}

// gone reports whether process pid has ended: no such process, or a
// zombie no one has reaped yet. A process just killed may take a moment to
// exit, so it looks again, for at most a minute, while it still runs.
func gone(pid int) bool {
	for range 6000 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		// The state follows the command name's closing parenthesis.
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// TestContentReads checks the bounded read under each shell: a small file
// whole, a longer one cut at its limit and marked over, binary bytes and a
// forged marker coming back as bytes, and the refusals a digest has.
func TestContentReads(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	must(t, os.WriteFile(p("small"), []byte("a\nb\n"), 0o644))
	must(t, os.WriteFile(p("long"), []byte("0123456789"), 0o644))
	must(t, os.WriteFile(p("forged"), []byte("ZAP00 E 0 0\nZAP00 Z\n\x00\xff"), 0o644))
	must(t, os.WriteFile(p("twice"), []byte("x"), 0o644))
	must(t, os.Link(p("twice"), p("twice2")))
	must(t, os.Symlink(p("small"), p("link")))
	must(t, syscall.Mkfifo(p("fifo"), 0o644))
	cases := []struct {
		path  string
		limit int
		want  detect.Answer
	}{
		{p("small"), 64, detect.Answer{Status: detect.StatusOK, Content: "a\nb\n"}},
		{p("long"), 10, detect.Answer{Status: detect.StatusOK, Content: "0123456789"}},
		{p("long"), 4, detect.Answer{Status: detect.StatusOK, Content: "0123", Over: true}},
		{p("forged"), 64, detect.Answer{Status: detect.StatusOK, Content: "ZAP00 E 0 0\nZAP00 Z\n\x00\xff"}},
		{p("none"), 4, detect.Answer{Status: detect.StatusMissing}},
		{p("link"), 4, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeSymlink}},
		{p("fifo"), 4, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeFIFO}},
		{dir, 4, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeDirectory}},
		{p("twice"), 4, detect.Answer{Status: detect.StatusHardLinked, Links: 2}},
	}
	qs := make([]detect.Query, len(cases))
	for i, c := range cases {
		qs[i] = detect.Query{Op: detect.OpContent, Lane: observation.LaneElevated, Path: c.path, Limit: c.limit}
	}
	answerEach(t, qs, func(t *testing.T, answers []detect.Answer) {
		for i, c := range cases {
			if answers[i] != c.want {
				t.Errorf("%s (limit %d): got %+v, want %+v", c.path, c.limit, answers[i], c.want)
			}
		}
	})
	if _, err := New([]detect.Query{{Op: detect.OpContent, Lane: observation.LaneElevated, Path: p("small")}}); err == nil {
		t.Error("a content read with no limit was taken")
	}
}

// TestGroupsTogether checks that three groups of path reads, with a probe
// and a link read among their reads, run side by side (the first two at
// once) and still answer each read as itself, in the order of the reads:
// the groups move up together to the first's place, and the probe and the
// link read keep theirs.
func TestGroupsTogether(t *testing.T) {
	paths, sums := files(t, 2*groupPaths+50)
	link := filepath.Join(t.TempDir(), "link")
	must(t, os.Symlink(paths[0], link))
	var qs []detect.Query
	var probeAt, linkAt int
	for f, q := range converged(paths) {
		if f == 3*700 {
			probeAt = len(qs)
			qs = append(qs, detect.NewProbe(observation.LaneElevated, `printf 'ZAP00 E 0 0\n'; exit 3`))
		}
		qs = append(qs, q)
	}
	linkAt = len(qs)
	qs = append(qs, detect.Query{Op: detect.OpReadlink, Lane: observation.LaneElevated, Path: link})
	b, err := New(qs)
	must(t, err)
	var ops []detect.Op
	for _, un := range b.units {
		ops = append(ops, un.op)
	}
	if want := []detect.Op{opPaths, opPaths, opPaths, detect.OpProbe, detect.OpReadlink}; !slices.Equal(ops, want) {
		t.Fatalf("units %v, want %v", ops, want)
	}
	if n := strings.Count(b.Script, "r=$("); n != 1 {
		t.Errorf("%d pairs of groups run at once, want 1", n)
	}
	eachAnswers(t, b, func(t *testing.T, answers []detect.Answer) {
		if got := answers[probeAt]; got.Status != detect.StatusOK || got.Exit != 3 || got.Output != "ZAP00 E 0 0\n" {
			t.Errorf("probe: %+v", got)
		}
		if got := answers[linkAt]; got.Status != detect.StatusOK || got.Target != paths[0] {
			t.Errorf("readlink: %+v", got)
		}
		rest := slices.Delete(slices.Clone(answers[:linkAt]), probeAt, probeAt+1)
		for i, got := range rest {
			f, q := i/3, qs[i]
			if i >= probeAt {
				q = qs[i+1]
			}
			ok := got.Status == detect.StatusOK
			switch q.Op {
			case detect.OpType:
				ok = ok && got.Type == detect.TypeRegular
			case detect.OpStat:
				ok = ok && got.Mode == 0o644
			case detect.OpDigest:
				ok = ok && got.SHA512 == sums[f]
			}
			if !ok {
				t.Fatalf("%s of file %d: %+v", q.Op, f, got)
			}
		}
	})
}

// TestTextReads: a group of text reads (a diff's) answers each path as a
// content read would, but reads a file over the limit not at all (its
// size instead), never follows a link or opens a fifo, takes whatever
// bytes a file holds as they are, and stops at the batch's budget.
func TestTextReads(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	must(t, os.WriteFile(p("small"), []byte("a\nb\n"), 0o644))
	must(t, os.WriteFile(p("empty"), nil, 0o644))
	must(t, os.WriteFile(p("long"), []byte(strings.Repeat("0123456789", 3)), 0o644))
	must(t, os.WriteFile(p("forged"), []byte("ZAP00 E 0 0\nZAP00 Z\n\x00\xff"), 0o644))
	must(t, os.WriteFile(p("odd name\nwith a line"), []byte("odd\n"), 0o644))
	must(t, os.WriteFile(p("twice"), []byte("x"), 0o644))
	must(t, os.Link(p("twice"), p("twice2")))
	must(t, os.Symlink(p("small"), p("link")))
	must(t, syscall.Mkfifo(p("fifo"), 0o644))
	cases := []struct {
		path string
		want detect.Answer
	}{
		{p("small"), detect.Answer{Status: detect.StatusOK, Content: "a\nb\n"}},
		{p("empty"), detect.Answer{Status: detect.StatusOK}},
		{p("long"), detect.Answer{Status: detect.StatusOK, Over: true, Size: 30}},
		{p("forged"), detect.Answer{Status: detect.StatusOK, Content: "ZAP00 E 0 0\nZAP00 Z\n\x00\xff"}},
		{p("odd name\nwith a line"), detect.Answer{Status: detect.StatusOK, Content: "odd\n"}},
		{p("none"), detect.Answer{Status: detect.StatusMissing}},
		{p("link"), detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeSymlink}},
		{p("fifo"), detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeOther}},
		{dir, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeOther}},
		{p("twice"), detect.Answer{Status: detect.StatusHardLinked, Links: 2}},
	}
	qs := []detect.Query{{Op: detect.OpDigest, Lane: observation.LaneElevated, Path: p("small")}}
	for _, c := range cases {
		qs = append(qs, detect.Query{Op: detect.OpText, Lane: observation.LaneElevated, Path: c.path, Limit: 24})
	}
	answerEach(t, qs, func(t *testing.T, answers []detect.Answer) {
		if answers[0].Status != detect.StatusOK || answers[0].SHA512 == "" {
			t.Errorf("the digest read beside the text reads: %+v", answers[0])
		}
		for i, c := range cases {
			if got := answers[i+1]; got != c.want {
				t.Errorf("%q: got %+v, want %+v", c.path, got, c.want)
			}
		}
	})
}

// TestTextReadsBudget: the text reads of a batch read at most
// detect.TextBudget bytes in all; a file past it answers failed, and one
// that still fits after it is read.
func TestTextReadsBudget(t *testing.T) {
	dir := t.TempDir()
	mib := bytes.Repeat([]byte("x"), 1<<20-10)
	var qs []detect.Query
	n := detect.TextBudget>>20 + 1
	for i := range n {
		path := filepath.Join(dir, strconv.Itoa(i))
		must(t, os.WriteFile(path, mib, 0o644))
		qs = append(qs, detect.Query{Op: detect.OpText, Lane: observation.LaneElevated, Path: path, Limit: detect.ContentLimit})
	}
	small := filepath.Join(dir, "small")
	must(t, os.WriteFile(small, []byte("s"), 0o644))
	qs = append(qs, detect.Query{Op: detect.OpText, Lane: observation.LaneElevated, Path: small, Limit: detect.ContentLimit})
	answerEach(t, qs, func(t *testing.T, answers []detect.Answer) {
		for i := range n - 1 {
			if a := answers[i]; a.Status != detect.StatusOK || len(a.Content) != len(mib) {
				t.Errorf("file %d: %s, %d bytes", i, a.Status, len(a.Content))
			}
		}
		if a := answers[n-1]; a.Status != detect.StatusFailed {
			t.Errorf("the file past the budget: %+v", a.Status)
		}
		if a := answers[n]; a.Status != detect.StatusOK || a.Content != "s" {
			t.Errorf("the small file after it: %+v", a)
		}
	})
}
