package sshhost

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// defaultConnectTimeout bounds a connection whose config sets none.
const defaultConnectTimeout = 30 * time.Second

// Target is where to connect, as the declaration says it.
type Target struct {
	Host string
	User string // "" lets ssh choose
	Port int    // 0 lets ssh choose
	// Identity is the declared private key, tried first ("" for none).
	Identity string
}

// ConnectError is a connection that couldn't be made: Reason is ssh's (or
// Zap's) own words, Hints what to do about it, Err its kind when it is a
// known one (errors.Is with ErrUnknownHost, ErrRefused, ErrUnreachable,
// ErrAuth, ErrHostKeyChanged; errors.go), else nil.
type ConnectError struct {
	Reason string
	Hints  []string
	Err    error
}

func (e *ConnectError) Error() string { return e.Reason }

// Dial connects to t the way the operator's ssh would: with the settings
// `ssh -G` reports, the operator's known_hosts (a key seen for the first
// time is recorded, a changed one refused), the ssh agent and identity
// files, through any ProxyJump hosts. home is the operator's home, for ~.
// Nothing is forwarded and no terminal is asked for, whatever the config
// says.
func Dial(ctx context.Context, t Target, home string) (*Client, error) {
	cfg, err := ReadConfig(ctx, t.Host, t.User, t.Port, home)
	if err != nil {
		return nil, &ConnectError{Reason: err.Error()}
	}
	a := newAuth(home)
	defer a.close()
	c := &Client{Config: cfg}
	conn, err := dial(ctx, cfg, t.Identity, a, c, 0)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.client = conn
	return c, nil
}

// maxJumps bounds a ProxyJump chain (and a loop in one).
const maxJumps = 8

func dial(ctx context.Context, cfg *Config, identity string, a *auth, c *Client, depth int) (*ssh.Client, error) {
	if cfg.ProxyCommand != "" {
		return nil, &ConnectError{
			Reason: fmt.Sprintf("your ssh config sets a ProxyCommand for %s, which Zap doesn't run", cfg.Host),
			Hints:  []string{"reach the host through ProxyJump instead"},
		}
	}
	if !cfg.Recorded() {
		return nil, &ConnectError{
			Reason: fmt.Sprintf("your ssh config sets UserKnownHostsFile /dev/null for %s, so a changed host key would go unnoticed", cfg.Host),
			Hints:  []string{"remove UserKnownHostsFile /dev/null for this host from your ssh config"},
		}
	}
	var via *ssh.Client
	if cfg.ProxyJump != "" {
		var err error
		if via, err = dialJump(ctx, cfg.ProxyJump, a, c, depth); err != nil {
			return nil, err
		}
	}

	hk, algos, err := hostKeys(cfg)
	if err != nil {
		return nil, &ConnectError{Reason: err.Error()}
	}
	timeout := defaultConnectTimeout
	if cfg.ConnectTimeout > 0 {
		timeout = time.Duration(cfg.ConnectTimeout) * time.Second
	}
	offered := 0
	conf := &ssh.ClientConfig{
		User:              cfg.User,
		Auth:              []ssh.AuthMethod{ssh.PublicKeysCallback(counted(a.signers(identity, cfg.IdentityFiles), &offered))},
		HostKeyCallback:   hk,
		HostKeyAlgorithms: algos,
		Timeout:           timeout,
	}
	if conf.User == "" {
		conf.User = a.localUser()
	}
	conf.AuthCallback = authCheck(conf.User, cfg.Host, &offered)
	addr := net.JoinHostPort(cfg.HostName, strconv.Itoa(cfg.Port))
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var conn net.Conn
	if via != nil {
		conn, err = via.DialContext(dctx, "tcp", addr)
	} else {
		conn, err = (&net.Dialer{}).DialContext(dctx, "tcp", addr)
	}
	if err != nil {
		return nil, netError(err, cfg)
	}
	// The handshake is bounded too: a host that accepts and says nothing
	// doesn't hold the pass, and a pass given up (ctx done) doesn't wait
	// for it.
	conn.SetDeadline(time.Now().Add(timeout))
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	sc, chans, reqs, err := ssh.NewClientConn(conn, addr, conf)
	if !stop() {
		if err == nil {
			sc.Close()
		}
		conn.Close()
		return nil, &ConnectError{Reason: ctx.Err().Error()}
	}
	if err != nil {
		conn.Close()
		var ke *keyError
		var ae *authError
		switch {
		case errors.As(err, &ke):
			return nil, ke.connectError()
		case errors.As(err, &ae):
			return nil, ae.connectError()
		}
		return nil, &ConnectError{Reason: strings.TrimPrefix(err.Error(), "ssh: handshake failed: ")}
	}
	conn.SetDeadline(time.Time{})
	return ssh.NewClient(sc, chans, reqs), nil
}

// dialJump connects to the last hop of the ProxyJump chain jump (a host's
// connection goes through it), reached through the hops before it as its
// own config says; depth is how many hops are behind the host already.
// The connection is kept in c.jumps, to be closed with c.
func dialJump(ctx context.Context, jump string, a *auth, c *Client, depth int) (*ssh.Client, error) {
	if depth >= maxJumps {
		return nil, &ConnectError{Reason: "the ProxyJump chain is longer than " + strconv.Itoa(maxJumps) + " hosts"}
	}
	hops := strings.Split(jump, ",")
	hop := hops[len(hops)-1]
	user, hostPort := "", hop
	if i := strings.LastIndex(hop, "@"); i >= 0 {
		user, hostPort = hop[:i], hop[i+1:]
	}
	h, p := hostPort, 0
	if host, port, err := net.SplitHostPort(hostPort); err == nil {
		h = host
		p, _ = strconv.Atoi(port)
	}
	jcfg, err := ReadConfig(ctx, h, user, p, a.home)
	if err != nil {
		return nil, &ConnectError{Reason: fmt.Sprintf("jump host %s: %v", h, err)}
	}
	if len(hops) > 1 {
		jcfg.ProxyJump = strings.Join(hops[:len(hops)-1], ",")
	}
	via, err := dial(ctx, jcfg, "", a, c, depth+1)
	if err != nil {
		return nil, err
	}
	c.jumps = append(c.jumps, via)
	return via, nil
}

// keyError is a host key Zap refuses.
type keyError struct {
	name    string // the host as its key is filed
	changed bool
	file    string // where the recorded key is
	line    int
	err     error // a revoked key, or a failure to record one
}

func (e *keyError) Error() string { return e.connectError().Reason }

func (e *keyError) connectError() *ConnectError {
	switch {
	case e.changed:
		return &ConnectError{
			Err:    ErrHostKeyChanged,
			Reason: fmt.Sprintf("the host key of %s has changed from the one recorded in %s:%d", e.name, e.file, e.line),
			Hints: []string{
				"a changed key can mean someone is in the middle of the connection; check the new key with the host's administrator",
				fmt.Sprintf("if the host was reinstalled, remove its old key with ssh-keygen -R %s", shellWord(e.name)),
			},
		}
	case e.err != nil:
		return &ConnectError{Reason: fmt.Sprintf("the host key of %s: %v", e.name, e.err)}
	}
	return &ConnectError{Reason: "the host key of " + e.name + " was refused"}
}

func shellWord(s string) string {
	if strings.ContainsAny(s, "[]:*? ") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// hostKeys is the host key check for cfg: the known hosts files that exist,
// a key seen for the first time recorded in the first UserKnownHostsFile, a
// changed one refused; and the key algorithms to ask for, those of the keys
// already recorded for the host.
func hostKeys(cfg *Config) (ssh.HostKeyCallback, []string, error) {
	name := cfg.HostName
	if cfg.HostKeyAlias != "" {
		name = cfg.HostKeyAlias
	}
	addr := net.JoinHostPort(name, strconv.Itoa(cfg.Port))
	filed := knownhosts.Normalize(addr)
	var files []string
	for _, f := range append(append([]string{}, cfg.KnownHosts...), cfg.Global...) {
		if f == "/dev/null" {
			continue
		}
		if _, err := os.Stat(f); err == nil {
			files = append(files, f)
		}
	}
	check := func(string, net.Addr, ssh.PublicKey) error { return &knownhosts.KeyError{} }
	if len(files) > 0 {
		cb, err := knownhosts.New(files...)
		if err != nil {
			return nil, nil, fmt.Errorf("read known hosts: %w", err)
		}
		check = cb
	}
	// Ask for the algorithms of the keys on record, so a host with several
	// keys shows the recorded one and a second key type isn't taken for a
	// changed key.
	var algos []string
	probe, _ := ssh.NewPublicKey(ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public())
	var ke *knownhosts.KeyError
	if err := check(addr, &net.TCPAddr{}, probe); errors.As(err, &ke) {
		for _, k := range ke.Want {
			switch k.Key.Type() {
			case ssh.KeyAlgoRSA:
				algos = append(algos, ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA)
			default:
				algos = append(algos, k.Key.Type())
			}
		}
	}
	var mu sync.Mutex
	cb := func(_ string, remote net.Addr, key ssh.PublicKey) error {
		err := check(addr, remote, key)
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &re):
			return &keyError{name: filed, err: errors.New("it is revoked")}
		case errors.As(err, &ke) && len(ke.Want) > 0:
			return &keyError{name: filed, changed: true, file: ke.Want[0].Filename, line: ke.Want[0].Line}
		case errors.As(err, &ke):
			mu.Lock()
			defer mu.Unlock()
			if err := record(cfg, filed, key); err != nil {
				return &keyError{name: filed, err: fmt.Errorf("record it: %w", err)}
			}
			return nil
		}
		return &keyError{name: filed, err: err}
	}
	return cb, algos, nil
}

// record appends a first-seen host key to the first UserKnownHostsFile.
func record(cfg *Config, filed string, key ssh.PublicKey) error {
	var file string
	for _, f := range cfg.KnownHosts {
		if f != "/dev/null" {
			file = f
			break
		}
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	host := filed
	if cfg.HashKnownHosts {
		host = knownhosts.HashHostname(filed)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(knownhosts.Line([]string{host}, key) + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
