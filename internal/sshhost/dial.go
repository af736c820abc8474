package sshhost

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
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
	// Notice, when set, is told what the operator should hear of that
	// Dial did: a host key it recorded (one line, no newline).
	Notice func(string)
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
// time is recorded and t.Notice told, or refused when StrictHostKeyChecking
// is yes or ask; a changed one refused), the ssh agent and identity
// files, through any ProxyJump hosts. home is the operator's home, for ~.
// Nothing is forwarded and no terminal is asked for, whatever the config
// says.
func Dial(ctx context.Context, t Target, home string) (*Client, error) {
	cfg, err := ReadConfig(ctx, t.Host, t.User, t.Port, home)
	if err != nil {
		return nil, &ConnectError{Reason: err.Error()}
	}
	a := newAuth(home)
	a.notice = t.Notice
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

	declared, keys, err := a.keys(identity, cfg.IdentityFiles)
	if err != nil {
		return nil, err
	}
	hk, algos, err := hostKeys(cfg, a.notice)
	if err != nil {
		return nil, err
	}
	timeout := defaultConnectTimeout
	if cfg.ConnectTimeout > 0 {
		timeout = time.Duration(cfg.ConnectTimeout) * time.Second
	}
	offered := 0
	conf := &ssh.ClientConfig{
		User:              cfg.User,
		Auth:              []ssh.AuthMethod{ssh.PublicKeysCallback(counted(a.signers(declared, keys), &offered))},
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
