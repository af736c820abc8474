package localops

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseModeRoundTrip reads any declared mode: what parseMode takes is
// octal digits only, at most 07777, and the same mode as its octal
// spelling; every mode up to 07777 spelled in octal, with or without a
// leading zero, reads as itself.
func FuzzParseModeRoundTrip(f *testing.F) {
	for _, s := range []string{"644", "0755", "4755", "07777", "10000", "", "-1", "+644", "0o644", "6_44", "888", " 644", "644\n", "00000000000000000000644"} {
		f.Add(s, uint16(0o644))
	}
	f.Fuzz(func(t *testing.T, s string, m uint16) {
		if got, err := parseMode(s); err == nil {
			if got > 0o7777 || s == "" || strings.Trim(s, "01234567") != "" {
				t.Fatalf("parseMode took %q as %#o", s, got)
			}
			if again, err := parseMode(strconv.FormatUint(uint64(got), 8)); err != nil || again != got {
				t.Fatalf("%#o spelled in octal reads as %#o (%v)", got, again, err)
			}
		}
		want := uint32(m) & 0o7777
		for _, spelled := range []string{strconv.FormatUint(uint64(want), 8), "0" + strconv.FormatUint(uint64(want), 8)} {
			if got, err := parseMode(spelled); err != nil || got != want {
				t.Fatalf("parseMode(%q) = %#o, %v; want %#o", spelled, got, err, want)
			}
		}
	})
}
