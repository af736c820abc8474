package aptrepo

import (
	"encoding/hex"
	"os/exec"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/detect/detecttest"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

const aptKey = "-----BEGIN PGP PUBLIC KEY BLOCK-----\nkey\n-----END PGP PUBLIC KEY BLOCK-----\n"

func blake3Hex(s string) string {
	sum := blake3.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestAptRepoVerdicts is the apt_repo's table: the pinned key and the
// resolved line is converged, neither there absent, each part that isn't as
// wanted a difference (a key that isn't the pin's says so), and a key that
// can't be compared, a list that isn't a file of its own and a line that
// didn't read hold.
func TestAptRepoVerdicts(t *testing.T) {
	pin := blake3Hex(aptKey)
	d := newAptRepo(&declaration.AptRepo{Source: "deb https://repo.example/apt $VERSION_CODENAME main"}, "pg", detect.Pin{Blake3: pin}, nil).(*AptRepo)
	if d.KeyPath != "/usr/share/keyrings/pg.asc" || d.ListFile != "/etc/apt/sources.list.d/pg.list" {
		t.Fatalf("default paths %s, %s", d.KeyPath, d.ListFile)
	}
	line := "deb [signed-by=/usr/share/keyrings/pg.asc] https://repo.example/apt bookworm main"
	resolved := detect.Answer{Status: detect.StatusOK, Output: line + "\n"}
	key := detect.Answer{Status: detect.StatusOK, Content: aptKey}
	list := detect.Answer{Status: detect.StatusOK, Content: line + "\n"}
	other := detect.Answer{Status: detect.StatusOK, Content: "deb https://elsewhere main\n"}
	withPin := func(r detect.Result) detect.Result { r.Pin = pin; return r }
	keyMissing := diff(FieldKey, "missing", "the pinned key (blake3 "+pin+")")
	listWant := "the source line: " + line
	detecttest.Check(t, d, []detecttest.Case{
		{"converged", []detect.Answer{key, list, resolved}, withPin(detect.Converged())},
		{"absent", []detect.Answer{detecttest.Missing, detecttest.Missing, resolved}, withPin(detect.Absent())},
		{"key missing", []detect.Answer{detecttest.Missing, list, resolved}, withPin(detect.Drifted([]observation.Difference{keyMissing}))},
		{"key differs", []detect.Answer{{Status: detect.StatusOK, Content: "other"}, list, resolved}, withPin(detect.Drifted([]observation.Difference{
			diff(FieldKey, "signing key differs from its pin (observed blake3 "+blake3Hex("other")+")", "the pinned key (blake3 "+pin+")")}))},
		{"list missing", []detect.Answer{key, detecttest.Missing, resolved}, withPin(detect.Drifted([]observation.Difference{diff(FieldList, "missing", listWant)}))},
		{"list other", []detect.Answer{key, other, resolved}, withPin(detect.Drifted([]observation.Difference{diff(FieldList, "other lines", listWant)}))},
		{"list longer", []detect.Answer{key, {Status: detect.StatusOK, Content: line + "\n", Over: true}, resolved}, withPin(detect.Drifted([]observation.Difference{diff(FieldList, "other lines", listWant)}))},
		{"list a link", []detect.Answer{key, {Status: detect.StatusNotRegular, Type: detect.TypeSymlink}, resolved}, withPin(detect.Drifted([]observation.Difference{diff(FieldList, "a symbolic link", listWant)}))},
		{"key a link", []detect.Answer{{Status: detect.StatusNotRegular, Type: detect.TypeSymlink}, list, resolved}, detect.Holding("the signing key /usr/share/keyrings/pg.asc is a symbolic link, not a regular file, so Zap doesn't compare it with its pin")},
		{"key a directory", []detect.Answer{{Status: detect.StatusNotRegular, Type: detect.TypeDirectory}, list, resolved}, detect.Holding("the signing key /usr/share/keyrings/pg.asc is a directory, not a regular file, so Zap doesn't compare it with its pin")},
		{"key hard linked", []detect.Answer{{Status: detect.StatusHardLinked, Links: 2}, list, resolved}, detect.Holding("the signing key /usr/share/keyrings/pg.asc has 2 hard links, so Zap doesn't read it: replace it with a copy of its own (a single link)")},
		{"key over 1 MiB", []detect.Answer{{Status: detect.StatusOK, Content: aptKey, Over: true}, list, resolved}, detect.Holding("the signing key /usr/share/keyrings/pg.asc is over 1024 KiB, so Zap doesn't compare it with its pin")},
		{"key denied", []detect.Answer{detecttest.Denied, list, resolved}, detect.Holding("permission denied reading the signing key /usr/share/keyrings/pg.asc")},
		{"list a fifo", []detect.Answer{key, {Status: detect.StatusNotRegular, Type: detect.TypeFIFO}, resolved}, detect.Holding("/etc/apt/sources.list.d/pg.list is a fifo, not a regular file")},
		{"list hard linked", []detect.Answer{key, {Status: detect.StatusHardLinked, Links: 3}, resolved}, detect.Holding("/etc/apt/sources.list.d/pg.list has 3 hard links, so Zap doesn't read it: replace it with a copy of its own (a single link)")},
		{"no os-release", []detect.Answer{key, list, {Status: detect.StatusOK, Exit: 93}}, detect.Holding("reading the source line with /etc/os-release sourced exited 93: /etc/os-release can't be read, or the line doesn't read in a shell")},
		{"line timed out", []detect.Answer{key, list, detecttest.TimedOut}, detect.Holding("reading the source line with /etc/os-release sourced timed out after 30s")},
	})
}

// TestAptRepoHoldsWithoutPin: a key with no pin yet, or one the lock can't
// vouch for, holds with the pin's reason and reads nothing.
func TestAptRepoHoldsWithoutPin(t *testing.T) {
	x := &declaration.AptRepo{Source: "deb https://repo.example/apt stable main"}
	for _, p := range []detect.Pin{{Hold: "its pin is tracked in zap.lock, and there is no entry"}, {}} {
		d := newAptRepo(x, "r", p, nil)
		if q := d.Queries(); len(q) != 0 {
			t.Errorf("%+v: %d queries, want none", p, len(q))
		}
		if r := d.Verdict(nil); r.Verdict != observation.Undetermined || !strings.HasPrefix(r.Reason, "key_url: ") {
			t.Errorf("%+v: %+v, want a hold naming key_url", p, r)
		}
	}
}

// TestAptSourceProbeReadsOsRelease runs the apt-source probe in this
// machine's shell: $VERSION_CODENAME is what /etc/os-release says, quotes
// are kept, and signed-by is in the line.
func TestAptSourceProbeReadsOsRelease(t *testing.T) {
	want, err := exec.Command("sh", "-c", ". /etc/os-release && printf %s \"$VERSION_CODENAME\"").Output()
	if err != nil || len(want) == 0 {
		t.Skipf("this machine's /etc/os-release gives no VERSION_CODENAME (%v)", err)
	}
	d := newAptRepo(&declaration.AptRepo{Source: `deb [arch=amd64] https://repo.example/apt "$VERSION_CODENAME" main`, KeyPath: "/etc/apt/keyrings/k.asc"}, "r", detect.Pin{Blake3: blake3Hex("k")}, nil).(*AptRepo)
	cmd := exec.Command("sh")
	cmd.Stdin = strings.NewReader(d.Queries()[2].Command.Text)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the probe: %v", err)
	}
	if got := string(out); got != `deb [arch=amd64 signed-by=/etc/apt/keyrings/k.asc] https://repo.example/apt "`+string(want)+`" main`+"\n" {
		t.Errorf("the probe printed %q", got)
	}
}

// TestAptRepoRemembersThePinnedKey: a key read on the target that is the
// pinned bytes goes to the content cache when it doesn't hold them, and
// only then: not a key that differs, nor one the cache holds already.
func TestAptRepoRemembersThePinnedKey(t *testing.T) {
	pin := blake3Hex(aptKey)
	x := &declaration.AptRepo{Source: "deb https://repo.example/apt stable main"}
	resolved := detect.Answer{Status: detect.StatusOK, Output: "deb [signed-by=/usr/share/keyrings/r.asc] https://repo.example/apt stable main\n"}
	for _, c := range []struct {
		name   string
		sha512 string
		key    string
		want   int
	}{{"uncached, pinned", "", aptKey, 1}, {"uncached, other", "", "other", 0}, {"cached", "x", aptKey, 0}} {
		var got []string
		d := newAptRepo(x, "r", detect.Pin{Blake3: pin, SHA512: c.sha512}, func(p string, data []byte) { got = append(got, p+" "+string(data)) })
		d.Verdict([]detect.Answer{{Status: detect.StatusOK, Content: c.key}, detecttest.Missing, resolved})
		if len(got) != c.want || (c.want == 1 && got[0] != pin+" "+aptKey) {
			t.Errorf("%s: remembered %q", c.name, got)
		}
	}
}

func diff(field, observed, desired string) observation.Difference {
	return observation.Difference{Field: field, Observed: observed, Desired: desired}
}
