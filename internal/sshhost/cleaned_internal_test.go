package sshhost

import (
	"fmt"
	"strings"
	"testing"
)

// TestCleanedList keeps per lane the most recent 64 directories a write
// reported, each once, and takes only a well-formed last line.
func TestCleanedList(t *testing.T) {
	var c cleaned
	for _, out := range []string{"", "notice\n", "zap-cleaned 1:2 3\n", "zap-cleaned 1:x\n", "zap-cleaned 1:2\nmore\n", "zap-cleaned :2\n", "zap-cleaned 123456789012345678901:2\n"} {
		c.add(laneRoot, out)
	}
	if l := c.list(laneRoot); l != "" {
		t.Fatalf("the list is %q after no well-formed report", l)
	}
	for i := range 100 {
		c.add(laneRoot, fmt.Sprintf("a login notice\nzap-cleaned 64768:%d\n", i))
	}
	c.add(laneRoot, "zap-cleaned 64768:50\n")
	l := strings.Fields(c.list(laneRoot))
	if len(l) != cleanedLimit || l[0] != "64768:36" || l[len(l)-1] != "64768:50" || l[len(l)-2] != "64768:99" {
		t.Fatalf("the list is %v, want the most recent 64, 64768:50 last once", l)
	}
	if got := c.list("login"); got != "" {
		t.Fatalf("the login lane's list is %q, want its own, empty", got)
	}
}
