package sshhost

import (
	"errors"
	"fmt"
	"io/fs"
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
	home   string
	agent  agent.ExtendedAgent
	conn   net.Conn
	notice func(string) // Target.Notice
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

// signers is the keys to offer, in order: the declared identity's, the
// agent's, then the config's identity files' (keys reads the files).
func (a *auth) signers(declared, files []ssh.Signer) func() ([]ssh.Signer, error) {
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
		for _, s := range declared {
			add(s)
		}
		if a.agent != nil {
			if ss, err := a.agent.Signers(); err == nil {
				for _, s := range ss {
					add(s)
				}
			}
		}
		for _, s := range files {
			add(s)
		}
		return out, nil
	}
}

// keys reads the private keys of the declared identity ("" for none) and
// of the config's identity files, before anything connects. A key file that
// is missing, can't be read or needs a passphrase is skipped (the agent may
// hold it); one that isn't a regular file, or is larger than
// maxIdentityFile, is refused (ErrConfig), naming it and where it is set.
func (a *auth) keys(identity string, files []string) (declared, config []ssh.Signer, err error) {
	load := func(f, what string) ([]ssh.Signer, error) {
		data, err := readRegular(f, maxIdentityFile)
		if err != nil {
			if errors.Is(err, errNotRegular) || !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
				return nil, &ConnectError{Err: ErrConfig,
					Reason: fmt.Sprintf("%s %s: %v", what, f, err),
					Hints:  []string{"name a private key file there (a regular file of at most 1 MiB)"}}
			}
			return nil, nil
		}
		if s, err := ssh.ParsePrivateKey(data); err == nil {
			return []ssh.Signer{s}, nil
		}
		return nil, nil
	}
	if identity != "" {
		if declared, err = load(expandHome(identity, a.home), "the target's identity"); err != nil {
			return nil, nil, err
		}
	}
	for _, f := range files {
		s, err := load(f, "your ssh config's IdentityFile")
		if err != nil {
			return nil, nil, err
		}
		config = append(config, s...)
	}
	return declared, config, nil
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
