package scripttest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/zap-go/zap/internal/proctree"
)

// TestClaimSubnet checks the /30s of `netns start` across claimants: a
// live claim is never given again, a claim whose owner is dead is taken
// over, and giving one up frees it.
func TestClaimSubnet(t *testing.T) {
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip")
	}
	t.Setenv("ZAP_TEST_RUN", t.TempDir())
	first, n1, err := claimSubnet("zapns-a", "zva", 7)
	if err != nil {
		t.Fatal(err)
	}
	second, n2, err := claimSubnet("zapns-b", "zvb", n1)
	if err != nil {
		t.Fatal(err)
	}
	if n2 == n1 {
		t.Fatalf("10.231.%d.0/30 claimed twice", n2)
	}
	if second.Owner != proctree.Self() || second.Netns != "zapns-b" || second.Veth != "zvb" {
		t.Errorf("the claim records %+v", second)
	}

	// A claim of a test binary that was killed (a start time not its
	// PID's): taken over.
	dead := &subnetClaim{Owner: proctree.Proc{PID: os.Getpid(), Start: "1"}, Netns: "zapns-dead", Veth: "zvdead",
		file: filepath.Join(runDir(), "netns", strconv.Itoa((n1+100)%256)+".json")}
	if err := dead.save(); err != nil {
		t.Fatal(err)
	}
	_, n3, err := claimSubnet("zapns-c", "zvc", (n1+100)%256)
	if err != nil {
		t.Fatal(err)
	}
	if n3 != (n1+100)%256 {
		t.Errorf("a dead owner's 10.231.%d.0/30 not taken over (got %d)", (n1+100)%256, n3)
	}
	var now subnetClaim
	data, _ := os.ReadFile(dead.file)
	if err := json.Unmarshal(data, &now); err != nil || now.Netns != "zapns-c" {
		t.Errorf("the taken-over claim holds %s (%v)", data, err)
	}

	// Given up, the first /30 is free again.
	os.Remove(first.file)
	_, n4, err := claimSubnet("zapns-d", "zvd", n1)
	if err != nil {
		t.Fatal(err)
	}
	if n4 != n1 {
		t.Errorf("a given-up 10.231.%d.0/30 not claimed again (got %d)", n1, n4)
	}
}
