package file

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/internal/detect"

	"github.com/zap-go/zap/pkg/observation"
)

const (
	wantSum  = "aaaa"
	otherSum = "bbbb"
)

type verdictCase struct {
	name    string
	answers []detect.Answer
	want    detect.Result
}

func check(t *testing.T, d detect.Detector, cases []verdictCase) {
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
	ok         = detect.Answer{Status: detect.StatusOK}
	missing    = detect.Answer{Status: detect.StatusMissing}
	denied     = detect.Answer{Status: detect.StatusDenied}
	timedOut   = detect.Answer{Status: detect.StatusTimedOut}
	isRegular  = detect.Answer{Status: detect.StatusOK, Type: detect.TypeRegular}
	isDir      = detect.Answer{Status: detect.StatusOK, Type: detect.TypeDirectory}
	isSymlink  = detect.Answer{Status: detect.StatusOK, Type: detect.TypeSymlink}
	isFIFO     = detect.Answer{Status: detect.StatusOK, Type: detect.TypeFIFO}
	digestOK   = detect.Answer{Status: detect.StatusOK, SHA512: wantSum}
	digestDiff = detect.Answer{Status: detect.StatusOK, SHA512: otherSum}
)

func notRegular(t detect.FileType) detect.Answer {
	return detect.Answer{Status: detect.StatusNotRegular, Type: t}
}

func stat(t detect.FileType, mode uint32, owner, group string) detect.Answer {
	return detect.Answer{Status: detect.StatusOK, Type: t, Mode: mode, Owner: owner, Group: group}
}

func diff(field, observed, desired string) observation.Difference {
	return observation.Difference{Field: field, Observed: observed, Desired: desired}
}

func TestFileVerdictContentOnly(t *testing.T) {
	f := &File{Path: "/etc/motd", Shown: "/etc/motd", SHA512: wantSum, Content: "inline (5 bytes)"}
	if q := f.Queries(); len(q) != 2 || q[0].Op != detect.OpDigest || q[1].Op != detect.OpType || q[0].Lane != observation.LaneElevated {
		t.Fatalf("queries: %+v", q)
	}
	check(t, f, []verdictCase{
		{"nothing there", []detect.Answer{missing, missing}, detect.Absent()},
		{"same content", []detect.Answer{digestOK, isRegular}, detect.Converged()},
		{"other content", []detect.Answer{digestDiff, isRegular}, detect.Drifted([]observation.Difference{diff("content", "differs", "inline (5 bytes)")})},
		{"symlink to a regular file", []detect.Answer{notRegular(detect.TypeSymlink), isRegular}, detect.Drifted([]observation.Difference{diff("type", "symbolic link", "regular file")})},
		{"dangling symlink", []detect.Answer{notRegular(detect.TypeSymlink), missing}, detect.Holding("/etc/motd is a dangling symbolic link, not a regular file")},
		{"symlink to a directory", []detect.Answer{notRegular(detect.TypeSymlink), isDir}, detect.Holding("/etc/motd is a symbolic link to a directory, not a regular file")},
		{"symlink to a fifo", []detect.Answer{notRegular(detect.TypeSymlink), isFIFO}, detect.Holding("/etc/motd is a symbolic link to a fifo, not a regular file")},
		{"symlink that can't be followed", []detect.Answer{notRegular(detect.TypeSymlink), denied}, detect.Holding("permission denied reading what the symbolic link at /etc/motd leads to")},
		{"directory", []detect.Answer{notRegular(detect.TypeDirectory), isDir}, detect.Holding("/etc/motd is a directory, not a regular file")},
		{"fifo", []detect.Answer{notRegular(detect.TypeFIFO), isFIFO}, detect.Holding("/etc/motd is a fifo, not a regular file")},
		{"device", []detect.Answer{notRegular(detect.TypeCharDev), ok}, detect.Holding("/etc/motd is a character device, not a regular file")},
		{"hard link", []detect.Answer{{Status: detect.StatusHardLinked, Links: 2}, isRegular}, detect.Holding("/etc/motd has 2 hard links, so Zap doesn't read it: replace it with a copy of its own (a single link)")},
		{"unreadable", []detect.Answer{denied, isRegular}, detect.Holding("permission denied reading /etc/motd")},
		{"read failed", []detect.Answer{{Status: detect.StatusFailed, Detail: "input/output error"}, isRegular}, detect.Holding("reading /etc/motd failed: input/output error")},
		{"read timed out", []detect.Answer{timedOut, isRegular}, detect.Holding("reading /etc/motd timed out")},
		{"no answer", []detect.Answer{{}, isRegular}, detect.Holding("no answer for the read of /etc/motd")},
	})
}

func TestFileVerdictAttributes(t *testing.T) {
	f := &File{Path: "/etc/motd", Shown: "/etc/motd", SHA512: wantSum, Content: "inline (5 bytes)",
		Attrs: detect.Attrs{Mode: "644", Owner: "root", Group: "adm"}}
	if q := f.Queries(); len(q) != 3 || q[2].Op != detect.OpStat || q[2].Lane != observation.LaneElevated {
		t.Fatalf("queries: %+v", q)
	}
	check(t, f, []verdictCase{
		{"nothing there", []detect.Answer{missing, missing, missing}, detect.Absent()},
		{"all match", []detect.Answer{digestOK, isRegular, stat(detect.TypeRegular, 0o644, "root", "adm")}, detect.Converged()},
		{"mode differs", []detect.Answer{digestOK, isRegular, stat(detect.TypeRegular, 0o600, "root", "adm")},
			detect.Drifted([]observation.Difference{diff("mode", "600", "644")})},
		{"set-id bit counts", []detect.Answer{digestOK, isRegular, stat(detect.TypeRegular, 0o4644, "root", "adm")},
			detect.Drifted([]observation.Difference{diff("mode", "4644", "644")})},
		{"everything differs", []detect.Answer{digestDiff, isRegular, stat(detect.TypeRegular, 0o666, "ops", "ops")},
			detect.Drifted([]observation.Difference{
				diff("content", "differs", "inline (5 bytes)"),
				diff("mode", "666", "644"),
				diff("owner", "ops", "root"),
				diff("group", "ops", "adm"),
			})},
		{"symlink to a matching file", []detect.Answer{notRegular(detect.TypeSymlink), isRegular, isSymlink},
			detect.Drifted([]observation.Difference{diff("type", "symbolic link", "regular file")})},
		{"unreadable stat", []detect.Answer{digestOK, isRegular, denied}, detect.Holding("permission denied reading the mode and owner of /etc/motd")},
		{"stat failed", []detect.Answer{digestOK, isRegular, {Status: detect.StatusFailed}}, detect.Holding("reading the mode and owner of /etc/motd failed")},
		{"gone between reads", []detect.Answer{digestOK, isRegular, missing}, detect.Holding("/etc/motd changed while it was read: nothing is there now")},
		{"swapped for a directory", []detect.Answer{digestOK, isRegular, stat(detect.TypeDirectory, 0o755, "root", "root")}, detect.Holding("/etc/motd changed while it was read: it is now a directory")},
		{"swapped for a symlink", []detect.Answer{digestOK, isRegular, stat(detect.TypeSymlink, 0o777, "root", "root")},
			detect.Drifted([]observation.Difference{diff("type", "symbolic link", "regular file")})},
		{"unreadable content, readable stat", []detect.Answer{denied, isRegular, stat(detect.TypeRegular, 0o000, "root", "adm")}, detect.Holding("permission denied reading /etc/motd")},
	})
	// Only the declared attributes are compared.
	modeOnly := &File{Path: "/x", Shown: "/x", SHA512: wantSum, Attrs: detect.Attrs{Mode: "0640"}}
	check(t, modeOnly, []verdictCase{
		{"owner and group not compared", []detect.Answer{digestOK, isRegular, stat(detect.TypeRegular, 0o640, "nobody", "nogroup")}, detect.Converged()},
		{"zero mode", []detect.Answer{digestOK, isRegular, stat(detect.TypeRegular, 0, "root", "root")}, detect.Drifted([]observation.Difference{diff("mode", "0", "0640")})},
	})
}

func TestWrongAnswerCount(t *testing.T) {
	for _, d := range []detect.Detector{
		&File{Shown: "/f"},
	} {
		if r := d.Verdict(nil); r.Verdict != observation.Undetermined {
			t.Errorf("%T with no answers: %+v", d, r)
		}
	}
}
