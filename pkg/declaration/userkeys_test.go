package declaration

import "testing"

func TestKeyShown(t *testing.T) {
	for in, want := range map[string]string{
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFSyA6uHcmuK/iZboAGruL5Sj5zTenI1JodHQR50+oty ops@laptop": "ssh-ed25519 …QR50+oty ops@laptop",
		`from="10.0.0.1" ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7Zx0= ci`:                             `from="10.0.0.1" ssh-rsa …AQC7Zx0= ci`,
		"ssh-ed25519 short": "ssh-ed25519 short",
		"no-pty,no-agent-forwarding,no-port-forwarding ssh-ed25519 x": "no-pty,no-agent-forwarding,no-port-forwarding ssh-ed25519 x",
	} {
		if got := KeyShown(in); got != want {
			t.Errorf("KeyShown(%q) = %q, want %q", in, got, want)
		}
	}
}
