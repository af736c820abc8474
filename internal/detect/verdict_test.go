package detect

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/pkg/observation"
)

const (
	wantSum  = "aaaa"
	otherSum = "bbbb"
)

type verdictCase struct {
	name    string
	answers []Answer
	want    Result
}

func check(t *testing.T, d Detector, cases []verdictCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if len(c.answers) != len(d.Queries()) {
				t.Fatalf("the case gives %d answers for %d queries", len(c.answers), len(d.Queries()))
			}
			got := d.Verdict(c.answers)
			if c.want.Seen == "" {
				// What a drifted file saw is checked by TestFileSeen.
				got.Seen = ""
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("verdict:\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

var (
	ok         = Answer{Status: StatusOK}
	missing    = Answer{Status: StatusMissing}
	denied     = Answer{Status: StatusDenied}
	timedOut   = Answer{Status: StatusTimedOut}
	isRegular  = Answer{Status: StatusOK, Type: TypeRegular}
	isDir      = Answer{Status: StatusOK, Type: TypeDirectory}
	isSymlink  = Answer{Status: StatusOK, Type: TypeSymlink}
	isFIFO     = Answer{Status: StatusOK, Type: TypeFIFO}
	digestOK   = Answer{Status: StatusOK, SHA512: wantSum}
	digestDiff = Answer{Status: StatusOK, SHA512: otherSum}
)

func notRegular(t FileType) Answer { return Answer{Status: StatusNotRegular, Type: t} }

func stat(t FileType, mode uint32, owner, group string) Answer {
	return Answer{Status: StatusOK, Type: t, Mode: mode, Owner: owner, Group: group}
}

func diff(field, observed, desired string) observation.Difference {
	return observation.Difference{Field: field, Observed: observed, Desired: desired}
}

func TestFileVerdictContentOnly(t *testing.T) {
	f := &File{Path: "/etc/motd", Shown: "/etc/motd", SHA512: wantSum, Content: "inline (5 bytes)"}
	if q := f.Queries(); len(q) != 2 || q[0].Op != OpDigest || q[1].Op != OpType || q[0].Lane != observation.LaneElevated {
		t.Fatalf("queries: %+v", q)
	}
	check(t, f, []verdictCase{
		{"nothing there", []Answer{missing, missing}, absent()},
		{"same content", []Answer{digestOK, isRegular}, converged()},
		{"other content", []Answer{digestDiff, isRegular}, drifted([]observation.Difference{diff("content", "differs", "inline (5 bytes)")})},
		{"symlink to a regular file", []Answer{notRegular(TypeSymlink), isRegular}, drifted([]observation.Difference{diff("type", "symbolic link", "regular file")})},
		{"dangling symlink", []Answer{notRegular(TypeSymlink), missing}, hold("/etc/motd is a dangling symbolic link, not a regular file")},
		{"symlink to a directory", []Answer{notRegular(TypeSymlink), isDir}, hold("/etc/motd is a symbolic link to a directory, not a regular file")},
		{"symlink to a fifo", []Answer{notRegular(TypeSymlink), isFIFO}, hold("/etc/motd is a symbolic link to a fifo, not a regular file")},
		{"symlink that can't be followed", []Answer{notRegular(TypeSymlink), denied}, hold("permission denied reading what the symbolic link at /etc/motd leads to")},
		{"directory", []Answer{notRegular(TypeDirectory), isDir}, hold("/etc/motd is a directory, not a regular file")},
		{"fifo", []Answer{notRegular(TypeFIFO), isFIFO}, hold("/etc/motd is a fifo, not a regular file")},
		{"device", []Answer{notRegular(TypeCharDev), ok}, hold("/etc/motd is a character device, not a regular file")},
		{"hard link", []Answer{{Status: StatusHardLinked, Links: 2}, isRegular}, hold("/etc/motd has 2 hard links, so Zap doesn't read it: replace it with a copy of its own (a single link)")},
		{"unreadable", []Answer{denied, isRegular}, hold("permission denied reading /etc/motd")},
		{"read failed", []Answer{{Status: StatusFailed, Detail: "input/output error"}, isRegular}, hold("reading /etc/motd failed: input/output error")},
		{"read timed out", []Answer{timedOut, isRegular}, hold("reading /etc/motd timed out")},
		{"no answer", []Answer{{}, isRegular}, hold("no answer for the read of /etc/motd")},
	})
}

func TestFileVerdictAttributes(t *testing.T) {
	f := &File{Path: "/etc/motd", Shown: "/etc/motd", SHA512: wantSum, Content: "inline (5 bytes)",
		Attrs: Attrs{Mode: "644", Owner: "root", Group: "adm"}}
	if q := f.Queries(); len(q) != 3 || q[2].Op != OpStat || q[2].Lane != observation.LaneElevated {
		t.Fatalf("queries: %+v", q)
	}
	check(t, f, []verdictCase{
		{"nothing there", []Answer{missing, missing, missing}, absent()},
		{"all match", []Answer{digestOK, isRegular, stat(TypeRegular, 0o644, "root", "adm")}, converged()},
		{"mode differs", []Answer{digestOK, isRegular, stat(TypeRegular, 0o600, "root", "adm")},
			drifted([]observation.Difference{diff("mode", "600", "644")})},
		{"set-id bit counts", []Answer{digestOK, isRegular, stat(TypeRegular, 0o4644, "root", "adm")},
			drifted([]observation.Difference{diff("mode", "4644", "644")})},
		{"everything differs", []Answer{digestDiff, isRegular, stat(TypeRegular, 0o666, "ops", "ops")},
			drifted([]observation.Difference{
				diff("content", "differs", "inline (5 bytes)"),
				diff("mode", "666", "644"),
				diff("owner", "ops", "root"),
				diff("group", "ops", "adm"),
			})},
		{"symlink to a matching file", []Answer{notRegular(TypeSymlink), isRegular, isSymlink},
			drifted([]observation.Difference{diff("type", "symbolic link", "regular file")})},
		{"unreadable stat", []Answer{digestOK, isRegular, denied}, hold("permission denied reading the mode and owner of /etc/motd")},
		{"stat failed", []Answer{digestOK, isRegular, {Status: StatusFailed}}, hold("reading the mode and owner of /etc/motd failed")},
		{"gone between reads", []Answer{digestOK, isRegular, missing}, hold("/etc/motd changed while it was read: nothing is there now")},
		{"swapped for a directory", []Answer{digestOK, isRegular, stat(TypeDirectory, 0o755, "root", "root")}, hold("/etc/motd changed while it was read: it is now a directory")},
		{"swapped for a symlink", []Answer{digestOK, isRegular, stat(TypeSymlink, 0o777, "root", "root")},
			drifted([]observation.Difference{diff("type", "symbolic link", "regular file")})},
		{"unreadable content, readable stat", []Answer{denied, isRegular, stat(TypeRegular, 0o000, "root", "adm")}, hold("permission denied reading /etc/motd")},
	})
	// Only the declared attributes are compared.
	modeOnly := &File{Path: "/x", Shown: "/x", SHA512: wantSum, Attrs: Attrs{Mode: "0640"}}
	check(t, modeOnly, []verdictCase{
		{"owner and group not compared", []Answer{digestOK, isRegular, stat(TypeRegular, 0o640, "nobody", "nogroup")}, converged()},
		{"zero mode", []Answer{digestOK, isRegular, stat(TypeRegular, 0, "root", "root")}, drifted([]observation.Difference{diff("mode", "0", "0640")})},
	})
}

func TestHeld(t *testing.T) {
	h := Held("path: the reference APP is unset or empty, so the path isn't absolute")
	if len(h.Queries()) != 0 {
		t.Fatal("a held detector reads nothing")
	}
	check(t, h, []verdictCase{{"holds", nil, hold("path: the reference APP is unset or empty, so the path isn't absolute")}})
}

func TestWrongAnswerCount(t *testing.T) {
	for _, d := range []Detector{
		&File{Shown: "/f"},
	} {
		if r := d.Verdict(nil); r.Verdict != observation.Undetermined {
			t.Errorf("%T with no answers: %+v", d, r)
		}
	}
}
