package sshhost

import (
	"net"
	"os"
	"os/user"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// auth holds the operator's keys for one Dial: the ssh agent's, when
// SSH_AUTH_SOCK names one, and the identity files'. The agent is used only
// to sign; it is never forwarded.
type auth struct {
	home  string
	agent agent.ExtendedAgent
	conn  net.Conn
}

func newAuth(home string) *auth {
	a := &auth{home: home}
	if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" {
		if conn, err := net.Dial("unix", sock); err == nil {
			a.conn = conn
			a.agent = agent.NewClient(conn)
		}
	}
	return a
}

func (a *auth) close() {
	if a.conn != nil {
		a.conn.Close()
	}
}

// signers is the keys to offer, in order: the declared identity, the
// agent's, then the config's identity files. A key file that is missing or
// needs a passphrase is skipped (the agent may hold it).
func (a *auth) signers(identity string, files []string) func() ([]ssh.Signer, error) {
	return func() ([]ssh.Signer, error) {
		var out []ssh.Signer
		seen := map[string]bool{}
		add := func(s ssh.Signer) {
			k := string(s.PublicKey().Marshal())
			if !seen[k] {
				seen[k] = true
				out = append(out, s)
			}
		}
		load := func(f string) {
			data, err := os.ReadFile(f)
			if err != nil {
				return
			}
			if s, err := ssh.ParsePrivateKey(data); err == nil {
				add(s)
			}
		}
		if identity != "" {
			load(expandHome(identity, a.home))
		}
		if a.agent != nil {
			if ss, err := a.agent.Signers(); err == nil {
				for _, s := range ss {
					add(s)
				}
			}
		}
		for _, f := range files {
			load(f)
		}
		return out, nil
	}
}

// localUser is the account name ssh would log in as when neither the
// declaration nor the config names one.
func (a *auth) localUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if len(p) > 1 && p[:2] == "~/" {
		return home + p[1:]
	}
	return p
}
