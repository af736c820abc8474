package zapeval

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParseOwnersRoundTrip reads any --owners value: what parseOwners
// takes is a list of one or more ids, which formatOwners spells back to a
// value parsing to the same list; and any list of one or more ids, as the
// parent formats it, reads as itself.
func FuzzParseOwnersRoundTrip(f *testing.F) {
	for _, s := range []string{"0", "1000", "0,1000", "", ",", "1,", "-1", "+1", "4294967295", "4294967296", "01,002", "1 ,2", "0x10"} {
		f.Add(s, uint32(1000), uint32(0))
	}
	f.Fuzz(func(t *testing.T, s string, a, b uint32) {
		if got, err := parseOwners(s); err == nil {
			if len(got) == 0 || len(got) != strings.Count(s, ",")+1 {
				t.Fatalf("parseOwners(%q) = %v", s, got)
			}
			if again, err := parseOwners(formatOwners(got)); err != nil || !slices.Equal(again, got) {
				t.Fatalf("%v came back as %v (%v)", got, again, err)
			}
		}
		for _, owners := range [][]uint32{{a}, {a, b}} {
			if got, err := parseOwners(formatOwners(owners)); err != nil || !slices.Equal(got, owners) {
				t.Fatalf("%v came back as %v (%v)", owners, got, err)
			}
		}
	})
}
