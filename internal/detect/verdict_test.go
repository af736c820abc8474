package detect

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/pkg/observation"
)

const wantSum = "aaaa"

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
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("verdict:\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

var (
	timedOut  = Answer{Status: StatusTimedOut}
	isRegular = Answer{Status: StatusOK, Type: TypeRegular}
	isDir     = Answer{Status: StatusOK, Type: TypeDirectory}
	digestOK  = Answer{Status: StatusOK, SHA512: wantSum}
)

func stat(t FileType, mode uint32, owner, group string) Answer {
	return Answer{Status: StatusOK, Type: t, Mode: mode, Owner: owner, Group: group}
}

func diff(field, observed, desired string) observation.Difference {
	return observation.Difference{Field: field, Observed: observed, Desired: desired}
}

func TestHeld(t *testing.T) {
	h := Held("path: the reference APP is unset or empty, so the path isn't absolute")
	if len(h.Queries()) != 0 {
		t.Fatal("a held detector reads nothing")
	}
	check(t, h, []verdictCase{{"holds", nil, hold("path: the reference APP is unset or empty, so the path isn't absolute")}})
}
