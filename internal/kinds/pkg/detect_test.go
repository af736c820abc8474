package pkg

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// build makes r's detector, as the package kind's Detect does.
func build(r *declaration.Resource, env detect.Env) detect.Detector {
	return NewPackage(declaration.BodyOf[*declaration.Package](r), env)
}

func pkgResource(t *testing.T, from map[string]string, check string) *declaration.Resource {
	t.Helper()
	p := &declaration.Package{From: from}
	if check != "" {
		c := declaration.Lit(check)
		p.Check = &c
	}
	return &declaration.Resource{Common: declaration.Common{ID: "p", Type: declaration.KindPackage}, Body: p}
}

// recordedDpkgList is the apt query's stdout recorded from a real
// dpkg-query over testdata/dpkg/status (its header lines dropped).
func recordedDpkgList(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/dpkg/list.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if !strings.HasPrefix(line, "#") {
			out.WriteString(line)
		}
	}
	return out.String()
}

// TestPackageQueries: the manager's query is a login probe (dpkg's the same
// text for every apt package; apk's names the package, quoted); a check path
// is an elevated type read, a check command a login command.
func TestPackageQueries(t *testing.T) {
	env := detect.Env{Home: "/home/op", PackageManager: "apt", Value: func(string) string { return "" }}
	q := build(pkgResource(t, map[string]string{"apt": "curl"}, ""), env).Queries()
	q2 := build(pkgResource(t, map[string]string{"apt": "jq"}, ""), env).Queries()
	if len(q) != 1 || q[0].Op != detect.OpProbe || q[0].Lane != observation.LaneLogin || q[0].Command.Text != dpkgQuery || q[0].Command.Timeout != vocab.ProbeTimeout {
		t.Fatalf("apt query = %+v", q)
	}
	if q2[0].Command.Text != q[0].Command.Text {
		t.Fatalf("two apt packages' queries differ: %q, %q", q[0].Command.Text, q2[0].Command.Text)
	}
	env.PackageManager = "apk"
	q = build(pkgResource(t, map[string]string{"apk": "so:libc.musl-x86_64.so.1"}, ""), env).Queries()
	if len(q) != 1 || q[0].Op != detect.OpProbe || q[0].Lane != observation.LaneLogin || q[0].Command.Text != `apk info -e -- 'so:libc.musl-x86_64.so.1'` {
		t.Fatalf("apk query = %+v", q)
	}
	q = build(pkgResource(t, map[string]string{"apk": "rg"}, "~/bin/rg"), env).Queries()
	if len(q) != 1 || q[0].Op != detect.OpType || q[0].Lane != observation.LaneElevated || q[0].Path != "/home/op/bin/rg" {
		t.Fatalf("check path query = %+v", q)
	}
	q = build(pkgResource(t, map[string]string{"apk": "rg"}, "command -v rg >/dev/null"), env).Queries()
	if len(q) != 1 || q[0].Op != detect.OpCommand || q[0].Lane != observation.LaneLogin || q[0].Command.Text != "command -v rg >/dev/null" || q[0].Command.Timeout != vocab.CheckTimeout {
		t.Fatalf("check command query = %+v", q)
	}
}

// TestPackageHolds: a package the target's manager can't read holds with
// no read, unless a check decides.
func TestPackageHolds(t *testing.T) {
	for _, c := range []struct {
		name, manager string
		from          map[string]string
		want          string
	}{
		{"no manager", "", map[string]string{"apt": "curl"}, "the target declares no package_manager, so the package can't be read (declare one in zap.target, or give the package a check)"},
		{"pacman", "pacman", map[string]string{"pacman": "curl"}, "this zap has no pacman backend (apt and apk only), so the package can't be read (give it a check)"},
		{"brew", "brew", map[string]string{"brew": "curl"}, "this zap has no brew backend (apt and apk only), so the package can't be read (give it a check)"},
		{"no entry", "apk", map[string]string{"apt": "curl"}, "from names no package for apk (the target's package_manager), so the package can't be read (add an entry, or give the package a check)"},
		{"refused form", "apt", map[string]string{"apt": "curl:any"}, `from.apt: "curl:any" names the architecture any, which dpkg records no package under; name the architecture, or none`},
	} {
		d := build(pkgResource(t, c.from, ""), detect.Env{PackageManager: c.manager, Value: func(string) string { return "" }})
		if len(d.Queries()) != 0 {
			t.Errorf("%s: reads %+v", c.name, d.Queries())
		}
		if r := d.Verdict(nil); r.Verdict != observation.Undetermined || r.Reason != c.want {
			t.Errorf("%s: %+v, want the hold %q", c.name, r, c.want)
		}
	}
}

// TestPackageVerdictApt reads the recorded dpkg list: installed (held back,
// triggers pending or awaited included) for any architecture is converged;
// half-installed, unpacked, half-configured, removed with its configuration
// left, and unknown to dpkg are absent; name:arch, =version and /suite as
// resources.md's Package names say.
func TestPackageVerdictApt(t *testing.T) {
	list := recordedDpkgList(t)
	for _, c := range []struct {
		name string
		want observation.Verdict
	}{
		{"zapfoo", observation.Converged},
		{"zapheld", observation.Converged},
		{"zaptrigp", observation.Converged},
		{"zaptriga", observation.Converged},
		{"zaprc", observation.Absent},
		{"zapunpacked", observation.Absent},
		{"zaphalf", observation.Absent},
		{"zaphalfconf", observation.Absent},
		{"zapnot", observation.Absent}, // purged: dpkg lists no record
		{"nosuch", observation.Absent},
		{"zapfo", observation.Absent}, // no prefix match
		{"memtest86+", observation.Converged},
		{"memtest86", observation.Absent},
		{"zapi386", observation.Converged}, // any architecture
		{"zapi386:i386", observation.Converged},
		{"zapi386:amd64", observation.Absent},
		{"zaplib:amd64", observation.Converged},
		{"zaplib:arm64", observation.Absent},
		{"zapall", observation.Converged},
		{"zapall:amd64", observation.Absent}, // dpkg records it under all, as dpkg-query reads it
		{"zapfoo=1.0-1", observation.Converged},
		{"zapfoo=1.0-2", observation.Absent},
		{"zapall=3:1.2~rc1+b1", observation.Converged},
		{"zapall=1.2~rc1+b1", observation.Absent},
		{"zaplib:i386=2.36", observation.Converged},
		{"zaplib:arm64=2.36", observation.Absent},
		{"zapfoo/bookworm-backports", observation.Converged}, // a suite reads installed at any version
		{"zaprc/bookworm", observation.Absent},
	} {
		d := build(pkgResource(t, map[string]string{"apt": c.name}, ""), detect.Env{PackageManager: "apt"})
		if _, ok := d.(*Package); !ok {
			t.Fatalf("%s: detector %#v", c.name, d)
		}
		r := d.Verdict([]detect.Answer{{Status: detect.StatusOK, Exit: 0, Output: list}})
		if r.Verdict != c.want {
			t.Errorf("%s: %+v, want %s", c.name, r, c.want)
		}
	}
}

// TestPackageVerdictQueryFailed: a query that fails never reads absent.
func TestPackageVerdictQueryFailed(t *testing.T) {
	d := build(pkgResource(t, map[string]string{"apt": "curl"}, ""), detect.Env{PackageManager: "apt"})
	for _, c := range []struct {
		a    detect.Answer
		want string
	}{
		{detect.Answer{Status: detect.StatusOK, Exit: 2}, "the package query failed: dpkg-query exited 2, so whether curl is installed is unknown"},
		{detect.Answer{Status: detect.StatusOK, Exit: 1}, "the package query failed: dpkg-query exited 1, so whether curl is installed is unknown"},
		{detect.Answer{Status: detect.StatusOK, Exit: 127}, "the package query failed: dpkg-query exited 127 (the command was not found), so whether curl is installed is unknown"},
		{detect.Answer{Status: detect.StatusOK, Exit: 0, Output: "curl\tamd64\tii \n"}, "the package query's output doesn't parse: line 1 is not a package record (name, architecture, status, version)"},
		{detect.Answer{Status: detect.StatusOK, Exit: 0, Output: "curl\tamd64\tii\t1.0\n"}, "the package query's output doesn't parse: line 1 is not a package record (name, architecture, status, version)"},
		{detect.Answer{Status: detect.StatusOK, Exit: 0, Output: "curl\tamd64\tii \t1\n\nx\n"}, "the package query's output doesn't parse: line 2 is not a package record (name, architecture, status, version)"},
		{detect.Answer{Status: detect.StatusTimedOut}, "reading the package database (dpkg-query) timed out after 30s"},
		{detect.Answer{Status: detect.StatusFailed, Detail: "the probe printed more than 1048576 bytes"}, "reading the package database (dpkg-query) failed: the probe printed more than 1048576 bytes"},
		{detect.Answer{Status: detect.StatusSudoFailed}, detect.SudoFailed},
		{detect.Answer{}, "no answer for the read of the package database (dpkg-query)"},
	} {
		if r := d.Verdict([]detect.Answer{c.a}); r.Verdict != observation.Undetermined || r.Reason != c.want {
			t.Errorf("%+v: %+v, want the hold %q", c.a, r, c.want)
		}
	}
	if r := d.Verdict(nil); r.Verdict != observation.Undetermined {
		t.Errorf("no answers: %+v", r)
	}
	// An empty database lists nothing and exits 0: not installed.
	if r := d.Verdict([]detect.Answer{{Status: detect.StatusOK}}); r.Verdict != observation.Absent {
		t.Errorf("empty list: %+v", r)
	}
}

// TestPackageVerdictApk reads apk info -e's answers (testdata/apk/info-e.tsv,
// transcribed from apk-tools' source: no Alpine host is reachable here).
func TestPackageVerdictApk(t *testing.T) {
	f, err := os.Open("testdata/apk/info-e.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 4 {
			t.Fatalf("testdata line %q: want 4 fields", line)
		}
		exit, err := strconv.Atoi(fields[1])
		if err != nil {
			t.Fatal(err)
		}
		out := strings.ReplaceAll(fields[2], `\n`, "\n")
		d := build(pkgResource(t, map[string]string{"apk": fields[0], "apt": "other"}, ""), detect.Env{PackageManager: "apk"})
		if q := d.Queries(); len(q) != 1 || q[0].Command.Text != "apk info -e -- "+vocab.Quote(fields[0]) {
			t.Fatalf("%s: query %+v", fields[0], q)
		}
		r := d.Verdict([]detect.Answer{{Status: detect.StatusOK, Exit: exit, Output: out}})
		if string(r.Verdict) != fields[3] {
			t.Errorf("%s exit %d: %+v, want %s", fields[0], exit, r, fields[3])
		}
		if r.Verdict == observation.Undetermined && !strings.Contains(r.Reason, "apk info -e exited "+fields[1]) {
			t.Errorf("%s exit %d: reason %q", fields[0], exit, r.Reason)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("read %d cases", n)
	}
}

// TestPackageVerdictCheck: a check decides installed; a check that reads
// not installed with nothing to install holds.
func TestPackageVerdictCheck(t *testing.T) {
	path := func(from map[string]string, manager string) detect.Detector {
		return build(pkgResource(t, from, "/usr/bin/rg"), detect.Env{PackageManager: manager})
	}
	cmd := func(from map[string]string, manager string) detect.Detector {
		return build(pkgResource(t, from, "rg --version"), detect.Env{PackageManager: manager})
	}
	apt := map[string]string{"apt": "ripgrep"}
	for _, c := range []struct {
		name   string
		d      detect.Detector
		a      detect.Answer
		want   observation.Verdict
		reason string
	}{
		{"path there", path(apt, "apt"), detect.Answer{Status: detect.StatusOK, Type: detect.TypeRegular}, observation.Converged, ""},
		{"path a directory", path(apt, "apt"), detect.Answer{Status: detect.StatusOK, Type: detect.TypeDirectory}, observation.Converged, ""},
		{"path missing", path(apt, "apt"), detect.Answer{Status: detect.StatusMissing}, observation.Absent, ""},
		{"path denied", path(apt, "apt"), detect.Answer{Status: detect.StatusDenied}, observation.Undetermined, "permission denied reading the check path /usr/bin/rg"},
		{"path timed out", path(apt, "apt"), detect.Answer{Status: detect.StatusTimedOut}, observation.Undetermined, "reading the check path /usr/bin/rg timed out"},
		{"path, no manager, there", path(apt, ""), detect.Answer{Status: detect.StatusOK, Type: detect.TypeRegular}, observation.Converged, ""},
		{"path, no manager, missing", path(apt, ""), detect.Answer{Status: detect.StatusMissing}, observation.Undetermined,
			"the target declares no package_manager, and the check reads the package not installed: there is nothing to install"},
		{"path, no entry, missing", path(apt, "apk"), detect.Answer{Status: detect.StatusMissing}, observation.Undetermined,
			"from names no package for apk (the target's package_manager), and the check reads the package not installed: there is nothing to install"},
		{"path, pacman, there", path(map[string]string{"pacman": "ripgrep"}, "pacman"), detect.Answer{Status: detect.StatusOK, Type: detect.TypeRegular}, observation.Converged, ""},
		{"path, pacman, missing", path(map[string]string{"pacman": "ripgrep"}, "pacman"), detect.Answer{Status: detect.StatusMissing}, observation.Undetermined,
			"the check reads the package not installed, and this zap has no pacman backend to install it with (apt and apk only)"},
		{"command 0", cmd(apt, "apt"), detect.Answer{Status: detect.StatusOK, Exit: 0}, observation.Converged, ""},
		{"command 1", cmd(apt, "apt"), detect.Answer{Status: detect.StatusOK, Exit: 1}, observation.Absent, ""},
		{"command 127", cmd(apt, "apt"), detect.Answer{Status: detect.StatusOK, Exit: 127}, observation.Absent, ""},
		{"command timed out", cmd(apt, "apt"), detect.Answer{Status: detect.StatusTimedOut}, observation.Undetermined, "the check timed out after 30s"},
		{"command killed", cmd(apt, "apt"), detect.Answer{Status: detect.StatusFailed, Detail: "killed by signal 9 (killed)"}, observation.Undetermined, "the check gave no exit status: killed by signal 9 (killed)"},
		{"command, brew, 0", cmd(map[string]string{"brew": "rg"}, "brew"), detect.Answer{Status: detect.StatusOK}, observation.Converged, ""},
	} {
		r := c.d.Verdict([]detect.Answer{c.a})
		if r.Verdict != c.want || r.Reason != c.reason {
			t.Errorf("%s: %+v, want %s %q", c.name, r, c.want, c.reason)
		}
	}
}

// TestPackageCheckPathResolves: a check path's references and ~ resolve;
// one whose value a path can't take holds, naming the variable.
func TestPackageCheckPathResolves(t *testing.T) {
	r := pkgResource(t, map[string]string{"apt": "x"}, "")
	txt := declaration.Concat(declaration.Part{Lit: "/opt/"}, declaration.Part{Env: "PREFIX"}, declaration.Part{Lit: "/bin/x"})
	declaration.BodyOf[*declaration.Package](r).Check = &txt
	d := build(r, detect.Env{PackageManager: "apt", Value: func(n string) string {
		if n == "PREFIX" {
			return "x"
		}
		return ""
	}})
	if q := d.Queries(); len(q) != 1 || q[0].Path != "/opt/x/bin/x" {
		t.Fatalf("queries %+v", q)
	}
	d = build(r, detect.Env{PackageManager: "apt", Value: func(string) string { return "a\nb" }})
	if res := d.Verdict(nil); res.Verdict != observation.Undetermined || !strings.Contains(res.Reason, "check: the reference PREFIX") {
		t.Fatalf("unset reference: %+v", res)
	}
}

// TestDpkgQueryLive runs the apt query through a real dpkg-query over the
// test database (DPKG_ADMINDIR, dpkg's own variable), and over one it can't
// read: the first answers as recorded, the second holds.
func TestDpkgQueryLive(t *testing.T) {
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		t.Skip("dpkg-query isn't installed here: the recorded list is tested instead")
	}
	admin, err := filepath.Abs("testdata/dpkg")
	if err != nil {
		t.Fatal(err)
	}
	run := func(dir string) detect.Answer {
		cmd := exec.CommandContext(context.Background(), "sh", "-s")
		cmd.Env = append(os.Environ(), "LC_ALL=C", "DPKG_ADMINDIR="+dir)
		cmd.Stdin = strings.NewReader((&detect.Command{Text: dpkgQuery}).Script())
		out, err := cmd.Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				return detect.Answer{Status: detect.StatusOK, Exit: ee.ExitCode(), Output: string(out)}
			}
			t.Fatal(err)
		}
		return detect.Answer{Status: detect.StatusOK, Output: string(out)}
	}
	a := run(admin)
	if a.Exit != 0 || a.Output != recordedDpkgList(t) {
		t.Fatalf("live answer differs from the recording:\nexit %d\n%s", a.Exit, a.Output)
	}
	// A status file that is a directory: dpkg-query can't read it, as
	// root too.
	bad := t.TempDir()
	if err := os.Mkdir(filepath.Join(bad, "status"), 0o755); err != nil {
		t.Fatal(err)
	}
	a = run(bad)
	d := build(pkgResource(t, map[string]string{"apt": "zapfoo"}, ""), detect.Env{PackageManager: "apt"})
	if r := d.Verdict([]detect.Answer{a}); r.Verdict != observation.Undetermined || !strings.Contains(r.Reason, "dpkg-query exited 2") {
		t.Fatalf("unreadable database: exit %d: %+v", a.Exit, r)
	}
}

// TestPassRunsOneDpkgQuery: every apt package of a pass reads the one dpkg
// query's answer.
func TestPassRunsOneDpkgQuery(t *testing.T) {
	list := recordedDpkgList(t)
	var ds []detect.Detector
	for _, n := range []string{"zapfoo", "zaprc", "zapheld", "nosuch"} {
		ds = append(ds, build(pkgResource(t, map[string]string{"apt": n}, ""), detect.Env{PackageManager: "apt"}))
	}
	ds = append(ds, build(pkgResource(t, map[string]string{"apt": "x"}, "true"), detect.Env{PackageManager: "apt"}))
	h := hostFunc(func(lane observation.Lane, qs []detect.Query) []detect.Answer {
		out := make([]detect.Answer, len(qs))
		for i, q := range qs {
			if q.Op == detect.OpProbe {
				out[i] = detect.Answer{Status: detect.StatusOK, Output: list}
			} else {
				out[i] = detect.Answer{Status: detect.StatusOK, Exit: 1}
			}
		}
		return out
	})
	batches, results := detect.Pass(context.Background(), h, ds)
	if len(batches) != 1 || batches[0].Queries != 2 {
		t.Fatalf("batches %+v, want one login batch of 2 reads (the dpkg query once, the check)", batches)
	}
	want := []observation.Verdict{observation.Converged, observation.Absent, observation.Converged, observation.Absent, observation.Absent}
	for i, r := range results {
		if r.Verdict != want[i] {
			t.Errorf("package %d: %+v, want %s", i, r, want[i])
		}
	}
}

type hostFunc func(observation.Lane, []detect.Query) []detect.Answer

func (f hostFunc) Answer(_ context.Context, lane observation.Lane, qs []detect.Query) ([]detect.Answer, error) {
	return f(lane, qs), nil
}

// FuzzParseDpkgList: the dpkg list parser never panics, and what it takes
// is exactly four tab-separated fields a line, which print back as read.
func FuzzParseDpkgList(f *testing.F) {
	f.Add("curl\tamd64\tii \t7.88\n")
	f.Add("")
	f.Add("\n")
	f.Add("a\tb\tc\td\n\n")
	f.Add("zaplib\ti386\tiHR\t2.36\nzapall\tall\trc \t3:1.2~rc1\n")
	f.Fuzz(func(t *testing.T, out string) {
		recs, err := ParseDpkgList(out)
		if err != nil {
			return
		}
		var b strings.Builder
		for _, r := range recs {
			if r.Package == "" || len(r.Status) != 3 || strings.ContainsAny(r.Package+r.Architecture+r.Status+r.Version, "\t\n") {
				t.Fatalf("record %+v", r)
			}
			b.WriteString(r.Package + "\t" + r.Architecture + "\t" + r.Status + "\t" + r.Version + "\n")
		}
		if got := b.String(); strings.TrimSuffix(got, "\n") != strings.TrimSuffix(out, "\n") {
			t.Fatalf("%q reads back as %q", out, got)
		}
	})
}

// FuzzParseAptName: a name apt takes apart prints back as written, and
// with one selector its parts hold none of the separators that split them.
func FuzzParseAptName(f *testing.F) {
	for _, s := range []string{"curl", "libc6:i386", "vim=2:9.0-1", "jq/bookworm-backports", "a:b=c", "a=b/c", "a:b:c", "a:", "a="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		n := ParseAptName(name)
		base, sel := name, ""
		if i := strings.LastIndexAny(name, "=/"); i >= 0 {
			base, sel = name[:i], name[i:]
		}
		back := n.Name
		if strings.Contains(base, ":") {
			back += ":" + n.Arch
		}
		switch {
		case strings.HasPrefix(sel, "="):
			back += "=" + n.Version
		case strings.HasPrefix(sel, "/"):
			back += "/" + n.Suite
		}
		if back != name {
			t.Fatalf("%q parses to %+v, which prints as %q", name, n, back)
		}
		// One selector at most (more is refused as a name): no part holds
		// a separator.
		if strings.Count(name, "=")+strings.Count(name, "/") <= 1 && (strings.Contains(n.Name, ":") || strings.ContainsAny(n.Name+n.Arch+n.Version+n.Suite, "=/")) {
			t.Fatalf("%q parses to %+v", name, n)
		}
	})
}
