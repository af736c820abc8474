package batch

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseRawModeRoundTrip reads any field where stat's %f (the raw mode
// in lowercase hex) goes: what parseMode takes is one to eight lowercase
// hex digits and the value they spell; every 32-bit mode spelled as stat
// spells it reads as itself.
func FuzzParseRawModeRoundTrip(f *testing.F) {
	for _, s := range []string{"81a4", "41ed", "a1ff", "0", "ffffffff", "100000000", "81A4", "", "-1", "0x81a4", "81a4\n", " 81a4"} {
		f.Add(s, uint32(0o100644))
	}
	f.Fuzz(func(t *testing.T, s string, m uint32) {
		if got, ok := parseMode(s); ok {
			if s == "" || len(s) > 8 || strings.Trim(s, "0123456789abcdef") != "" {
				t.Fatalf("parseMode took %q as %#x", s, got)
			}
			if n, err := strconv.ParseUint(s, 16, 32); err != nil || uint32(n) != got {
				t.Fatalf("parseMode(%q) = %#x, want %#x", s, got, n)
			}
		}
		if got, ok := parseMode(strconv.FormatUint(uint64(m), 16)); !ok || got != m {
			t.Fatalf("stat's %x reads as %#x, %v", m, got, ok)
		}
	})
}
