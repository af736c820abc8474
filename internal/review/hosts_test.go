package review

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func TestCombined(t *testing.T) {
	a, b := strings.Repeat("a", 64), strings.Repeat("b", 64)
	sum := sha256.Sum256([]byte("zap.hosts/1\n" + a + "\n" + b + "\n"))
	if got, want := Combined([]string{a, b}), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("Combined(a, b) = %s, want %s", got, want)
	}
	if Combined([]string{a, b}) == Combined([]string{b, a}) {
		t.Error("the combined hash doesn't depend on the hosts' order")
	}
	if got := Combined([]string{a, ""}); got != "" {
		t.Errorf("a host with no plan_hash: Combined = %q, want none", got)
	}
}
