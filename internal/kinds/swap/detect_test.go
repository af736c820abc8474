package swap

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/detect/detecttest"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

const swapsHeader = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"

// swaps is the /proc/swaps probe's answer: the resolved directory, then
// the table with one line per name.
func swaps(dir string, names ...string) detect.Answer {
	out := dir + "\n" + swapsHeader
	for _, n := range names {
		out += n + "                               file\t\t1048572\t\t0\t\t-2\n"
	}
	return detect.Answer{Status: detect.StatusOK, Output: out}
}

func fstab(text string) detect.Answer { return detect.Answer{Status: detect.StatusOK, Output: text} }

const baseFstab = "# /etc/fstab: static file system information.\nUUID=abcd / ext4 errors=remount-ro 0 1\n"

var (
	swapFile  = detect.Answer{Status: detect.StatusOK, Type: detect.TypeRegular, Mode: 0o600, Owner: "root", Group: "root"}
	noFstab   = detect.Answer{Status: detect.StatusOK, Exit: 3}
	listed    = fstab(baseFstab + "/swapfile none swap sw 0 0\n")
	notListed = fstab(baseFstab)
	active    = swaps("/", "/swapfile")
	inactive  = swaps("/", "/dev/sda2")
)

func swapDrift(parts ...string) detect.Result {
	var d []observation.Difference
	for _, p := range parts {
		switch p {
		case FieldFile:
			d = append(d, observation.Difference{Field: FieldFile, Observed: Missing, Desired: Present})
		case FieldActive:
			d = append(d, observation.Difference{Field: FieldActive, Observed: Inactive, Desired: Active})
		case FieldFstab:
			d = append(d, observation.Difference{Field: FieldFstab, Observed: NotListed, Desired: Listed})
		}
	}
	return detect.Drifted(d)
}

// TestSwapVerdicts is the swap's table: a regular file, active and listed
// is converged, none of the three absent, and each part detecttest.Missing a
// difference; a link or anything but a regular file at the path, a read
// that gave no answer, and output that doesn't parse hold.
func TestSwapVerdicts(t *testing.T) {
	s := &Swap{Path: "/swapfile"}
	detecttest.Check(t, s, []detecttest.Case{
		{"converged", []detect.Answer{swapFile, active, listed}, detect.Converged()},
		{"absent", []detect.Answer{detecttest.Missing, inactive, notListed}, detect.Absent()},
		{"absent, no fstab at all", []detect.Answer{detecttest.Missing, inactive, noFstab}, detect.Absent()},
		{"absent, no swap at all", []detect.Answer{detecttest.Missing, swaps("/"), notListed}, detect.Absent()},
		{"not active", []detect.Answer{swapFile, inactive, listed}, swapDrift(FieldActive)},
		{"not listed", []detect.Answer{swapFile, active, notListed}, swapDrift(FieldFstab)},
		{"neither", []detect.Answer{swapFile, inactive, notListed}, swapDrift(FieldActive, FieldFstab)},
		{"listed, file gone", []detect.Answer{detecttest.Missing, inactive, listed}, swapDrift(FieldFile, FieldActive)},
		{"a deleted file still active is not this one", []detect.Answer{detecttest.Missing, swaps("/", `/swapfile\040(deleted)`), listed}, swapDrift(FieldFile, FieldActive)},
		{"active with nothing there holds", []detect.Answer{detecttest.Missing, active, listed},
			detect.Holding("/swapfile reads as an active swap in /proc/swaps with nothing at its name: check it by hand (swapon --show)")},
		{"a commented entry doesn't list it", []detect.Answer{swapFile, active, fstab(baseFstab + "#/swapfile none swap sw 0 0\n")}, swapDrift(FieldFstab)},
		{"an entry of another type doesn't list it", []detect.Answer{swapFile, active, fstab(baseFstab + "/swapfile /mnt ext4 defaults 0 0\n")}, swapDrift(FieldFstab)},
		{"a prefix isn't the path", []detect.Answer{swapFile, swaps("/", "/swapfile2"), fstab("/swapfile2 none swap sw 0 0\n")}, swapDrift(FieldActive, FieldFstab)},
		{"tabs and no final newline", []detect.Answer{swapFile, active, fstab("/swapfile\tnone\tswap\tdefaults,pri=5\t0\t0")}, detect.Converged()},
		{"a symlink holds", []detect.Answer{{Status: detect.StatusOK, Type: detect.TypeSymlink, Mode: 0o777, Owner: "root", Group: "root"}, inactive, notListed},
			detect.Holding("/swapfile is a symbolic link: Zap won't make, format or enable a swap file through one (mkswap would format what it points at); remove it, or declare the path it leads to")},
		{"a directory holds", []detect.Answer{{Status: detect.StatusOK, Type: detect.TypeDirectory, Mode: 0o755}, inactive, notListed},
			detect.Holding("/swapfile is a directory, not a regular file: Zap won't make a swap file in its place; remove it, or declare another path")},
		{"a block device holds", []detect.Answer{{Status: detect.StatusOK, Type: detect.TypeBlockDev}, active, listed},
			detect.Holding("/swapfile is a block device, not a regular file: Zap won't make a swap file in its place; remove it, or declare another path")},
		// A path the login user can't reach reads absent (detection.md),
		// unless the kernel has it active by that name.
		{"stat denied, active", []detect.Answer{detecttest.Denied, active, listed}, detect.Converged()},
		{"stat denied, not active", []detect.Answer{detecttest.Denied, inactive, notListed}, detect.Absent()},
		{"stat denied, listed only", []detect.Answer{detecttest.Denied, inactive, listed}, detect.Drifted([]observation.Difference{
			{Field: FieldFile, Observed: Missing, Desired: Present},
			{Field: FieldActive, Observed: Inactive, Desired: Active}})},
		{"stat sudo", []detect.Answer{{Status: detect.StatusSudoFailed}, active, listed}, detect.Holding(detect.SudoFailed)},
		{"swaps timed out", []detect.Answer{swapFile, detecttest.TimedOut, listed}, detect.Holding("reading /proc/swaps timed out after 30s")},
		{"swaps failed", []detect.Answer{swapFile, {Status: detect.StatusOK, Exit: 1, Output: "/\n"}, listed},
			detect.Holding("reading /proc/swaps exited 1: Zap can't tell whether /swapfile is an active swap")},
		{"swaps garbled", []detect.Answer{swapFile, {Status: detect.StatusOK, Output: "/\nhello\n"}, listed},
			detect.Holding("/proc/swaps doesn't read as a table of swap areas: Zap can't tell whether /swapfile is an active swap")},
		{"swaps no exit", []detect.Answer{swapFile, {Status: detect.StatusFailed, Detail: "killed"}, listed}, detect.Holding("reading /proc/swaps gave no exit status: killed")},
		{"fstab unreadable holds", []detect.Answer{swapFile, active, {Status: detect.StatusOK, Exit: 1}},
			detect.Holding("reading /etc/fstab exited 1: Zap can't tell whether it lists /swapfile")},
		{"fstab timed out holds", []detect.Answer{swapFile, active, detecttest.TimedOut}, detect.Holding("reading /etc/fstab timed out after 30s")},
		{"fstab no answer", []detect.Answer{swapFile, active, {}}, detect.Holding("no answer for the read of /etc/fstab")},
	})
}

// TestSwapEscapes: /proc/swaps and /etc/fstab write a space, tab, line
// break or backslash as an octal escape; the name compares decoded, and
// through its directory as it resolves.
func TestSwapEscapes(t *testing.T) {
	s := &Swap{Path: `/srv/a\b`}
	detecttest.Check(t, s, []detecttest.Case{
		{"escaped backslash", []detect.Answer{swapFile, swaps("/srv", `/srv/a\134b`), fstab(`/srv/a\134b none swap sw 0 0` + "\n")}, detect.Converged()},
		{"raw backslash", []detect.Answer{swapFile, swaps("/srv", `/srv/a\b`), fstab(`/srv/a\b none swap sw 0 0` + "\n")}, detect.Converged()},
	})
	linked := &Swap{Path: "/swap/file"}
	detecttest.Check(t, linked, []detecttest.Case{
		{"through a linked directory", []detect.Answer{swapFile, swaps("/data/swap", "/data/swap/file"), fstab("/swap/file none swap sw 0 0\n")}, detect.Converged()},
		{"the directory can't be entered", []detect.Answer{detecttest.Missing, swaps("", "/data/swap/file"), notListed}, detect.Absent()},
	})
	for in, want := range map[string]string{
		`a\040b`: "a b", `a\011b`: "a\tb", `a\012b`: "a\nb", `a\134b`: `a\b`, `a\b`: `a\b`, `a\04`: `a\04`, `a\400`: `a\400`, `\134`: `\`,
	} {
		if got := Unoctal(in); got != want {
			t.Errorf("Unoctal(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSwapBuild: the default path, and a path no swap file can have holds
// before anything is read.
func TestSwapBuild(t *testing.T) {
	d := NewSwap(&declaration.Swap{Size: "1G"}, detecttest.Env(nil))
	q := d.Queries()
	if len(q) != 3 || q[0].Op != detect.OpStat || q[0].Path != "/swapfile" || q[1].Op != detect.OpProbe || q[2].Op != detect.OpProbe {
		t.Fatalf("queries %+v", q)
	}
	for _, x := range q {
		if x.Lane != observation.LaneLogin {
			t.Errorf("%s runs in %s, want login", x.Op, x.Lane)
		}
	}
	for path, want := range map[string]string{
		"/swap/":      "path: /swap/ is not a plain file path (it ends in /, or holds //, . or ..)",
		"/a/../swap":  "path: /a/../swap is not a plain file path (it ends in /, or holds //, . or ..)",
		"/a//swap":    "path: /a//swap is not a plain file path (it ends in /, or holds //, . or ..)",
		"/":           "path: / is not a plain file path (it ends in /, or holds //, . or ..)",
		"/a b":        "path: /a b holds whitespace, which an /etc/fstab field can't",
		"/a\vb":       "path: /a\vb holds whitespace, which an /etc/fstab field can't",
		"relative/sw": "path: relative/sw is not an absolute path",
	} {
		d := NewSwap(&declaration.Swap{Size: "1G", Path: path}, detecttest.Env(nil))
		if len(d.Queries()) != 0 {
			t.Errorf("%s: reads %v", path, d.Queries())
		}
		if got := d.Verdict(nil); got.Verdict != observation.Undetermined || got.Reason != want {
			t.Errorf("%s: %+v, want %q", path, got, want)
		}
	}
}

// TestSwapProbesRun runs both probes under each shell there is, against
// this machine: /proc/swaps parses, and the fstab probe exits 0 with the
// table or 3 when there is none (read here as the test's own copy).
func TestSwapProbesRun(t *testing.T) {
	for _, sh := range []string{"dash", "bash", "busybox"} {
		bin, err := exec.LookPath(sh)
		if err != nil {
			t.Logf("%s: not installed, not tried", sh)
			continue
		}
		argv := []string{bin}
		if sh == "busybox" {
			argv = append(argv, "ash")
		}
		run := func(text string) (string, int) {
			cmd := exec.Command(argv[0], append(argv[1:], "-s")...)
			cmd.Stdin = strings.NewReader(text)
			cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin"}
			out, err := cmd.Output()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			return string(out), code
		}
		dir := t.TempDir()
		out, code := run(SwapsProbe(filepath.Join(dir, "swap")))
		if code != 0 {
			t.Fatalf("%s: the swaps probe exited %d", sh, code)
		}
		first, table, _ := strings.Cut(out, "\n")
		if first != dir {
			t.Errorf("%s: the swaps probe's directory %q, want %q", sh, first, dir)
		}
		if _, ok := SwapNames(table); !ok {
			t.Errorf("%s: /proc/swaps doesn't parse: %q", sh, table)
		}
		out, code = run(SwapsProbe(filepath.Join(dir, "none", "swap")))
		if first, _, _ := strings.Cut(out, "\n"); code != 0 || first != "" {
			t.Errorf("%s: a missing directory: exit %d, first line %q", sh, code, first)
		}
		for _, c := range []struct {
			text string
			code int
		}{
			{FstabProbe, 0},
			{strings.ReplaceAll(FstabProbe, FstabFile, filepath.Join(dir, "fstab")), 3},
		} {
			if _, code := run(c.text); code != c.code {
				t.Errorf("%s: %q exited %d, want %d", sh, c.text, code, c.code)
			}
		}
	}
}

// escapeField writes s as /proc/swaps and /etc/fstab do: a space, tab,
// line break and backslash as \ooo.
func escapeField(s string) string {
	r := strings.NewReplacer(`\`, `\134`, " ", `\040`, "\t", `\011`, "\n", `\012`)
	return r.Replace(s)
}

// FuzzSwapTables: any name, escaped as the kernel escapes it, decodes back
// to itself and is found in both tables (and a name that differs isn't);
// no text makes the parsers panic.
func FuzzSwapTables(f *testing.F) {
	f.Add("/swapfile", "")
	f.Add(`/srv/a\b c`, `\134\040`)
	f.Add("/x\ty\nz", "Filename\n/x")
	f.Fuzz(func(t *testing.T, name, junk string) {
		SwapNames(junk)
		FstabListsSwap(junk, name)
		Unoctal(junk)
		if name == "" {
			return
		}
		esc := escapeField(name)
		if got := Unoctal(esc); got != name {
			t.Fatalf("Unoctal(%q) = %q, want %q", esc, got, name)
		}
		names, ok := SwapNames(swapsHeader + esc + "\tfile\t1024\t0\t-2\n")
		if !ok || len(names) != 1 || names[0] != name {
			t.Fatalf("SwapNames of %q: %q %v", esc, names, ok)
		}
		if !strings.HasPrefix(esc, "#") && !FstabListsSwap("# c\n"+esc+" none swap sw 0 0\n", name) {
			t.Fatalf("fstab doesn't list %q as %q", name, esc)
		}
		if FstabListsSwap(esc+"x none swap sw 0 0\n", name) {
			t.Fatalf("fstab lists %q for %q", esc+"x", name)
		}
	})
}
