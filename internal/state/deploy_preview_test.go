package state

import (
	"errors"
	"strings"
	"testing"
)

// TestDeployPreview: the store records a deploy preview per config and
// host, apart from the last-run report; one wetrun claims it, and a second
// claim of the same preview is lost.
func TestDeployPreview(t *testing.T) {
	s := newStore(t)
	if p, err := s.LoadDeployPreview("/p/zap.ts", "h"); p != nil || err != nil {
		t.Fatalf("before any preview: %v, %v", p, err)
	}
	hash := strings.Repeat("a", 64)
	if err := s.RecordDeployPreview("/p/zap.ts", "h", hash); err != nil {
		t.Fatal(err)
	}
	if l, err := s.Load("/p/zap.ts", "h"); err != nil || (l != nil && l.Report != nil) {
		t.Fatalf("a deploy preview reads as a last-run report: %+v, %v", l, err)
	}
	if p, _ := s.LoadDeployPreview("/p/zap.ts", "other"); p != nil {
		t.Fatal("another host's preview reads as this one's")
	}
	a, err := s.LoadDeployPreview("/p/zap.ts", "h")
	if err != nil || a == nil || a.Hash != hash {
		t.Fatalf("read back: %+v, %v", a, err)
	}
	b, _ := s.LoadDeployPreview("/p/zap.ts", "h")
	if err := a.Claim(); err != nil {
		t.Fatalf("the first claim: %v", err)
	}
	if err := b.Claim(); !errors.Is(err, ErrClaimLost) {
		t.Fatalf("the second claim: %v", err)
	}
	if p, _ := s.LoadDeployPreview("/p/zap.ts", "h"); p != nil {
		t.Fatal("a claimed preview is still there")
	}
}
