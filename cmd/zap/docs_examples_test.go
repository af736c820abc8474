package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/scripttest"
)

// example is one ```ts block of a page: a whole config.
type example struct {
	file string // the page, relative to the checkout
	line int    // the fence's line
	code string
	// dir is a directory of the checkout the example is evaluated in,
	// from the fence's dir=PATH: the project files it names are there.
	dir string
	// converge is the fence's converge: the example, a local target that
	// needs no root and no network, is also applied.
	converge bool
	// lab is the fence's lab (systemd) or lab=KIND: the example, whose
	// target is labTarget, is also applied to a lab host of that kind.
	lab string
}

// labTarget and labUser are the host and the login a lab example's target
// names: a host of the reader's own, in a config they can copy. The test
// gives a lab host that name (an alias in ~/.ssh/config) and that account
// (a key login with passwordless sudo, as a target over SSH needs).
const (
	labTarget = "web1.example.net"
	labUser   = "admin"
)

// labNeeds is what the machine needs to run a lab host of each kind, for a
// skip to say.
var labNeeds = map[string]string{
	"systemd": "root, debootstrap, systemd-nspawn, apt-cacher-ng, iproute2 and ssh-keygen",
	"openrc":  "root, debootstrap, apt-cacher-ng, iproute2 and ssh-keygen",
}

// labTargetRef is how a lab example's target names labTarget and
// labUser: as written, or each by a reference (zap.env('NAME')) the test
// sets to it.
var labTargetRef = regexp.MustCompile(`zap\.target\(\{\s*host: (?:'` + regexp.QuoteMeta(labTarget) + `'|zap\.env\('([A-Za-z_][A-Za-z0-9_]*)'\)),\s*user: (?:'` + labUser + `'|zap\.env\('([A-Za-z_][A-Za-z0-9_]*)'\))`)

// envRef is a reference a config writes: zap.env('NAME').
var envRef = regexp.MustCompile(`zap\.env\('([A-Za-z_][A-Za-z0-9_]*)'\)`)

// fence opens a code block, perhaps indented under a list item: its
// indent, and its info string.
var fence = regexp.MustCompile("^([ \t]*)```(.*)$")

// docExamples reads the ts blocks of the markdown page path. A block
// fenced ```ts is a whole config an example test evaluates; ```ts
// dir=PATH evaluates it in a copy of PATH; ```ts converge also applies it
// (a local target needing no root and no network); ```ts lab also applies
// it to a systemd lab host, ```ts lab=openrc to an OpenRC one (a target
// named labTarget, needing no internet); ```ts fragment is part of one
// (an import, a call) and is left out, so a fragment can't hold a whole
// config (export default) the test would miss.
func docExamples(t *testing.T, root, path string) []example {
	t.Helper()
	f, err := os.Open(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []example
	var cur *example
	var indent string
	fragment := false
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		m := fence.FindStringSubmatch(l)
		switch {
		case cur == nil && m != nil:
			info := strings.Fields(m[2])
			if len(info) == 0 || info[0] != "ts" {
				// Another language's block: skipped whole.
				cur, indent, fragment = &example{}, m[1], true
				cur.file = ""
				continue
			}
			cur, indent, fragment = &example{file: path, line: n}, m[1], false
			for _, opt := range info[1:] {
				switch {
				case opt == "fragment":
					fragment = true
				case opt == "converge":
					cur.converge = true
				case opt == "lab":
					cur.lab = "systemd"
				case strings.HasPrefix(opt, "lab="):
					cur.lab = strings.TrimPrefix(opt, "lab=")
				case strings.HasPrefix(opt, "dir="):
					cur.dir = strings.TrimPrefix(opt, "dir=")
				default:
					t.Errorf("%s:%d: unknown ts block option %q (want fragment, converge, lab, lab=KIND or dir=PATH)", path, n, opt)
				}
			}
		case cur != nil && m != nil && strings.TrimSpace(m[2]) == "":
			if cur.file != "" {
				if fragment && strings.Contains(cur.code, "export default") {
					t.Errorf("%s:%d: a ts fragment holds a whole config: fence it ```ts so a test evaluates it", path, cur.line)
				}
				if !fragment {
					out = append(out, *cur)
				}
			}
			cur = nil
		case cur != nil:
			cur.code += strings.TrimPrefix(l, indent) + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Errorf("%s: a code block is never closed", path)
	}
	return out
}

// TestDocExamples evaluates every ts example of the user's pages (the
// top README and docs/, the generated reference in docs/kinds among them)
// as a config of its own: zap config validate must say ok, with no
// warning, as the unprivileged account when the tests run as root; one
// fenced converge is applied too, on this machine in the test's own home,
// and must read converged. The examples fenced lab are applied, in page
// order, to one lab host of their kind (one script a kind, so the machine
// boots one systemd host for them all), each from a dry run to a wetrun
// that must read converged. An example that doesn't evaluate, would hold
// on its target, or doesn't converge, fails.
//
// Not every example can converge: the lab has no route out, only the
// apt cacher (internal/lab), so an example that fetches from the internet
// (apt_repo's key, build's archive, installer's script) is evaluated only;
// swap's is evaluated only, since a systemd lab host's container refuses
// swapon (nspawn gives it no CAP_SYS_ADMIN) and an OpenRC host shares the
// machine's kernel, whose swap it would change; the other pages' examples
// name hosts (several, a bootstrap account) and projects the lab doesn't
// make.
func TestDocExamples(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{"README.md"}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			pages = append(pages, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	count := 0
	labs := map[string][]example{}
	for _, page := range pages {
		for _, ex := range docExamples(t, root, page) {
			count++
			if ex.lab != "" {
				if ex.converge {
					t.Errorf("%s:%d: a ts block is fenced converge (this machine) or lab, not both", ex.file, ex.line)
				}
				if !labTargetRef.MatchString(ex.code) {
					t.Errorf("%s:%d: a lab example's target is zap.target({host: '%s', user: '%s', ...}) (either may be a zap.env reference), the host the test makes of a lab host", ex.file, ex.line, labTarget, labUser)
				}
				labs[ex.lab] = append(labs[ex.lab], ex)
				continue
			}
			name := strings.NewReplacer("/", "_", ".", "_").Replace(ex.file) + fmt.Sprintf("_%d", ex.line)
			if err := os.WriteFile(filepath.Join(dir, name+".txtar"), []byte(exampleScript(ex)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if count < 15 {
		t.Fatalf("found %d ts examples in the pages: the reader finds too few (each kind's page has one)", count)
	}
	if len(labs["systemd"]) < 5 {
		t.Errorf("found %d ts lab examples: the kinds that need root (package, user, service...) are each fenced lab", len(labs["systemd"]))
	}
	for kind, exs := range labs {
		if kind != "systemd" && kind != "openrc" {
			t.Errorf("%s:%d: lab=%s: the lab hosts are systemd and openrc", exs[0].file, exs[0].line, kind)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, "lab_"+kind+".txtar"), []byte(labScript(kind, exs)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := scripttest.Params(dir)
	p.Setup = withExamples(t, p.Setup)
	testscript.Run(t, p)
}

// exampleScript is the testscript evaluating ex: in an empty project (or a
// copy of ex.dir), the toolchain pinned to the zap-eval the tests run, so
// no pin is fetched, then zap config validate.
func exampleScript(ex example) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s:%d, evaluated as a config of its own.\n", ex.file, ex.line)
	exampleSteps(&b, ex)
	if ex.converge {
		convergeSteps(&b, ex)
	}
	exampleFiles(&b, ex, "")
	return b.String()
}

// labScript is the testscript applying exs, in order, to one lab host of
// kind: the host booted as labTarget, labUser made on it as a target's
// login is (its key, passwordless sudo), then each example evaluated in a
// directory of its own and converged.
func labScript(kind string, exs []example) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The docs' examples fenced lab, applied in page order to one %s lab host.\n", kind)
	fmt.Fprintf(&b, "[!lab:%s] skip 'needs %s to run %s lab host'\n", kind, labNeeds[kind], map[string]string{"systemd": "a systemd", "openrc": "an OpenRC"}[kind])
	fmt.Fprintf(&b, "lab start %s:%s\n", kind, labTarget)
	fmt.Fprintf(&b, "lab exec sh -c 'useradd -m -s /bin/sh -p \"*\" %[1]s && install -d -m 700 -o %[1]s -g %[1]s /home/%[1]s/.ssh && install -m 600 -o %[1]s -g %[1]s /home/zaptest/.ssh/authorized_keys /home/%[1]s/.ssh/ && echo \"%[1]s ALL=(ALL) NOPASSWD: ALL\" > /etc/sudoers.d/%[1]s && chmod 440 /etc/sudoers.d/%[1]s'\n", labUser)
	// The host is shared, so each example must still have changes to make
	// after those before it: one that declares what an earlier one did
	// reads converged at its dry run, and fails there.
	for i, ex := range exs {
		fmt.Fprintf(&b, "\n# %s:%d\n", ex.file, ex.line)
		fmt.Fprintf(&b, "cd $WORK/ex%d\n", i)
		exampleSteps(&b, ex)
		convergeSteps(&b, ex)
	}
	for i, ex := range exs {
		exampleFiles(&b, ex, fmt.Sprintf("ex%d/", i))
	}
	return b.String()
}

// exampleSteps evaluates ex in the script's directory: its project files
// copied, the toolchain pinned to the zap-eval the tests run (so no pin is
// fetched), then zap config validate.
func exampleSteps(b *strings.Builder, ex example) {
	if ex.dir != "" {
		fmt.Fprintf(b, "exec cp -R $EXAMPLES/../%s/. .\n", ex.dir)
	}
	b.WriteString("cp example.ts zap.ts\n")
	b.WriteString("blake3 $ZAP_BIN/zap-eval PIN\n")
	b.WriteString(`exec sh -c 'printf ''{"format":"zap.lock/2","entries":[],"toolchain":{"blake3":"%s"}}\n'' "$1" > zap.lock' sh $PIN` + "\n")
	b.WriteString("runas zap config validate\n")
	b.WriteString("stdout '^ok: [0-9]+ resource\\(s\\)$'\n")
	b.WriteString("! stderr .\n")
}

// convergeSteps applies ex: each variable it references set (a lab
// target's host and user to labTarget and labUser), then a
// preview (changes pending, exit 2) and the wetrun, which reads the target
// again and exits 0 only when all it applied reads converged.
func convergeSteps(b *strings.Builder, ex example) {
	host, user := "", ""
	if m := labTargetRef.FindStringSubmatch(ex.code); ex.lab != "" && m != nil {
		host, user = m[1], m[2]
	}
	for _, m := range envRef.FindAllStringSubmatch(ex.code, -1) {
		switch v := m[1]; {
		case v == host:
			fmt.Fprintf(b, "env %s=%s\n", v, labTarget)
		case v == user:
			fmt.Fprintf(b, "env %s=%s\n", v, labUser)
		default:
			fmt.Fprintf(b, "env %s=example-value\n", v)
		}
	}
	b.WriteString("runas -code 2 zap apply\n")
	b.WriteString("runas zap apply --wetrun\n")
	b.WriteString("stdout '^Observed: '\n")
	b.WriteString("! stdout 'RESIDUAL'\n")
	if ex.lab != "" {
		// And the next plan is empty: converged, read as the plan reads.
		b.WriteString("runas zap plan\n")
		b.WriteString("stdout '^\\(no changes — converged\\)$'\n")
	}
}

// exampleFiles writes ex's files into the archive, under prefix.
func exampleFiles(b *strings.Builder, ex example, prefix string) {
	fmt.Fprintf(b, "-- %sexample.ts --\n", prefix)
	b.WriteString(ex.code)
	if ex.dir == "" {
		fmt.Fprintf(b, "-- %spackage.json --\n{\"name\": \"example\", \"private\": true}\n", prefix)
	}
}
