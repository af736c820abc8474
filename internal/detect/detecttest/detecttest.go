// Package detecttest holds what the tests of a kind's own detector
// (internal/kinds/<kind>) share: a table of answers and the verdict each
// gives, checked against the detector, and the answers most tables use.
package detecttest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/observation"
)

// Case is one row of a detector's table: the answers to its queries, in
// their order, and the result they give. It is a struct type's alias, so a
// table may write its rows unkeyed.
type Case = struct {
	Name    string
	Answers []detect.Answer
	Want    detect.Result
}

// Check runs d's verdict on each case's answers and fails, naming the
// case, where the result isn't the case's (Seen aside, when the case wants
// none) or the case's answers aren't one per query.
func Check(t *testing.T, d detect.Detector, cases []Case) {
	t.Helper()
	queries := len(d.Queries())
	for _, c := range cases {
		if len(c.Answers) != queries {
			t.Errorf("%s: %d answers for %d queries", c.Name, len(c.Answers), queries)
			continue
		}
		if got := d.Verdict(c.Answers); !sameResult(got, c.Want) {
			t.Errorf("%s: verdict\n got %+v\nwant %+v", c.Name, got, c.Want)
		}
	}
}

// sameResult reports whether got is want, got's Seen aside when want has
// none.
func sameResult(got, want detect.Result) bool {
	if want.Seen == "" {
		got.Seen = ""
	}
	return reflect.DeepEqual(got, want)
}

// The answers most tables use.
var (
	Missing  = detect.Answer{Status: detect.StatusMissing}
	Denied   = detect.Answer{Status: detect.StatusDenied}
	TimedOut = detect.Answer{Status: detect.StatusTimedOut}
)

// Env is an environment to build a detector against: home /home/ops, and
// vars the operator's values (none secret).
func Env(vars map[string]string) detect.Env {
	return detect.Env{
		Home:   "/home/ops",
		Value:  func(n string) string { return vars[n] },
		Secret: func(string) bool { return false },
	}
}

// Drift is the result drifted by the differences d.
func Drift(d ...observation.Difference) detect.Result { return detect.Drifted(d) }

// Recorded is a tool's output recorded on a real machine, the file name
// under the test's testdata/tool (each such folder's README says where
// from).
func Recorded(t testing.TB, tool, name string) string {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join("testdata", tool, name)); err == nil {
		return string(b)
	} else {
		t.Fatalf("the recorded %s output %s: %v", tool, name, err)
	}
	return ""
}
