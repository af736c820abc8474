package ops_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nftBusyboxTools are the commands firewall-nft-apply uses that BusyBox has
// as applets.
var nftBusyboxTools = []string{"cat", "chmod", "chown", "mktemp", "mv", "rm"}

// nftRun runs firewall-nft-apply ARGS in a private mount namespace where
// /etc is an overlay whose upper directory is upper (the machine's own
// /etc is never touched), with a FAKE nft first on PATH: it appends its
// argv to bin/../log, copies the file of a -c -f to bin/../checked, and
// exits with the status in bin/../exit-check for a -c, bin/../exit-load
// otherwise (0 when none). The real nft runs in firewall_nftables.txtar.
func nftRun(t *testing.T, sh userShell, bin, upper string, args ...string) (int, string) {
	return etcOverlayRun(t, sh, "firewall-nft-apply", bin+":"+sh.path, upper, args...)
}

func fakeNft(t *testing.T, dir string) string {
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := `#!/bin/sh
d='` + dir + `'
echo "nft $*" >>"$d/log"
if [ "$1" = -c ]; then
	cat "$3" >"$d/checked"
	stat -c '%a %u %g' "$3" >"$d/checked-mode"
	[ -f "$d/exit-check" ] && exit "$(cat "$d/exit-check")"
	exit 0
fi
[ -f "$d/exit-load" ] && exit "$(cat "$d/exit-load")"
exit 0
`
	if err := os.WriteFile(filepath.Join(bin, "nft"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

const nftWant = `#!/usr/sbin/nft -f
# Written whole by Zap (a firewall resource, backend nftables): edits are
# replaced on its next apply. Only the table inet filter is replaced.
table inet filter
delete table inet filter
table inet filter {
	chain input {
		type filter hook input priority filter; policy drop;
		ct state established,related accept
		iif "lo" accept
		tcp dport 22 accept
		udp dport 53 accept
		tcp dport 5353 accept
		udp dport 5353 accept
	}
	chain output {
		type filter hook output priority filter; policy accept;
		ct state established,related accept
		oif "lo" accept
	}
}
`

// TestNftApply: the ruleset written whole for the arguments, checked with
// nft -c, renamed into place mode 600 root's, loaded with nft -f (never a
// flush); reject is drop plus a trailing reject; a ruleset nft won't take
// changes nothing; a wrong argument exits 93 with no nft run.
func TestNftApply(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("firewall-nft-apply writes /etc/nftables.nft as root: it is tested as root, in a private mount namespace")
	}
	base, err := os.MkdirTemp("/var/tmp", "zap-nfttest.")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	fstabNeeds(t, base)
	n := 0
	for _, sh := range opShells(t, "firewall", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", nftBusyboxTools) {
		fresh := func() (dir, bin, upper string) {
			n++
			dir = filepath.Join(base, fmt.Sprintf("t%d", n))
			upper = filepath.Join(dir, "up")
			if err := os.MkdirAll(upper, 0o755); err != nil {
				t.Fatal(err)
			}
			return dir, fakeNft(t, dir), upper
		}
		t.Run(sh.name, func(t *testing.T) {
			dir, bin, upper := fresh()
			if code, stderr := nftRun(t, sh, bin, upper, "deny", "allow", "22/tcp", "53/udp", "5353"); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got, err := os.ReadFile(filepath.Join(upper, "nftables.nft"))
			if err != nil || string(got) != nftWant {
				t.Errorf("the ruleset (%v):\n%s\nwant:\n%s", err, got, nftWant)
			}
			var st syscall.Stat_t
			if err := syscall.Stat(filepath.Join(upper, "nftables.nft"), &st); err != nil || st.Mode&0o7777 != 0o600 || st.Uid != 0 || st.Gid != 0 {
				t.Errorf("the ruleset's mode %o, owner %d:%d (%v): want 600 root's", st.Mode&0o7777, st.Uid, st.Gid, err)
			}
			if checked, _ := os.ReadFile(filepath.Join(dir, "checked")); string(checked) != nftWant {
				t.Errorf("nft -c checked another text:\n%s", checked)
			}
			if mode, _ := os.ReadFile(filepath.Join(dir, "checked-mode")); strings.TrimSpace(string(mode)) != "600 0 0" {
				t.Errorf("the file nft -c checked was %q, want 600 root's before the rename", mode)
			}
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			lines := strings.Split(strings.TrimSpace(string(log)), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "nft -c -f /etc/.zap.") || lines[1] != "nft -f /etc/nftables.nft" {
				t.Errorf("nft ran:\n%s\nwant a check of the new file, then a load of /etc/nftables.nft", log)
			}
			if strings.Contains(string(got), "flush") {
				t.Errorf("the ruleset flushes: %s", got)
			}
			left, _ := filepath.Glob(filepath.Join(upper, ".zap.*"))
			if len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}

			// reject: the drop policy, a trailing reject rule.
			_, bin, upper = fresh()
			if code, stderr := nftRun(t, sh, bin, upper, "reject", "reject"); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got, _ = os.ReadFile(filepath.Join(upper, "nftables.nft"))
			if strings.Count(string(got), "policy drop;") != 2 || strings.Count(string(got), "\t\treject\n\t}") != 2 {
				t.Errorf("reject, reject:\n%s", got)
			}

			// nft won't take it: nothing installed, nothing loaded, no
			// temporary file left.
			dir, bin, upper = fresh()
			if err := os.WriteFile(filepath.Join(dir, "exit-check"), []byte("1"), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, stderr := nftRun(t, sh, bin, upper, "deny", "allow", "22/tcp"); code != 1 || !strings.Contains(stderr, "nothing changed") {
				t.Errorf("a ruleset nft refuses: exit %d, %s", code, stderr)
			}
			entries, _ := os.ReadDir(upper)
			if len(entries) != 0 {
				t.Errorf("a refused ruleset left %v in /etc", entries)
			}
			if log, _ := os.ReadFile(filepath.Join(dir, "log")); strings.Contains(string(log), "nft -f") {
				t.Errorf("a refused ruleset was loaded: %s", log)
			}

			// Wrong arguments: exit 93, no nft run, nothing written.
			for _, args := range [][]string{
				nil, {"deny"}, {"drop", "allow"}, {"deny", "-x"}, {"deny", "allow", "0"}, {"deny", "allow", "65536"},
				{"deny", "allow", "22/sctp"}, {"deny", "allow", "OpenSSH"}, {"deny", "allow", "-f"}, {"deny", "allow", "022"},
				{"deny", "allow", "22/tcp;flush ruleset"}, {"deny", "allow", ""},
			} {
				dir, bin, upper := fresh()
				code, stderr := nftRun(t, sh, bin, upper, args...)
				_, ran := os.Stat(filepath.Join(dir, "log"))
				entries, _ := os.ReadDir(upper)
				if code != 93 || ran == nil || len(entries) != 0 || !strings.HasPrefix(stderr, "zap firewall-nft-apply: ") {
					t.Errorf("%q: exit %d, %q, nft ran %v, wrote %v", args, code, stderr, ran == nil, entries)
				}
			}
		})
	}
}
