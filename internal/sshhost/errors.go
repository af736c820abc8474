package sshhost

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/crypto/ssh"
)

// The kinds of connection failure a ConnectError can be, for errors.Is: each
// has its own hint naming what to check, so a caller never reads the
// reason's text to tell them apart.
var (
	// ErrUnknownHost is a host name that doesn't resolve.
	ErrUnknownHost = errors.New("the host name doesn't resolve")
	// ErrRefused is a host that refused the connection: nothing listens
	// on the port.
	ErrRefused = errors.New("the connection was refused")
	// ErrUnreachable is a host that didn't answer in time, or to which
	// there is no route.
	ErrUnreachable = errors.New("the host can't be reached")
	// ErrAuth is a login the server refused: no key to offer, none of the
	// keys offered accepted, or a server that takes no key at all.
	ErrAuth = errors.New("the server accepted no key")
	// ErrHostKeyChanged is a host whose key isn't the one known_hosts
	// records for it.
	ErrHostKeyChanged = errors.New("the host key has changed")
	// ErrHostKeyUnknown is a host key known_hosts doesn't hold, refused
	// because the ssh config's StrictHostKeyChecking says so.
	ErrHostKeyUnknown = errors.New("the host key is not known")
	// ErrConfig is a setting of the ssh config (or the target) that Zap
	// refuses as input: a file it names that isn't a regular file, or is
	// larger than Zap reads.
	ErrConfig = errors.New("the ssh config names a file Zap doesn't read")
)

// Unwrap is the kind of failure e is (ErrUnknownHost and the others), nil
// when it is none of them.
func (e *ConnectError) Unwrap() error { return e.Err }

// netError is the ConnectError for err, the failure to reach addr (cfg's
// host and port) over TCP: its kind and hint when it is one of the known
// ones, err's own words as the reason.
func netError(err error, cfg *Config) *ConnectError {
	ce := &ConnectError{Reason: err.Error()}
	port := strconv.Itoa(cfg.Port)
	var dns *net.DNSError
	var timeout net.Error
	switch {
	case errors.As(err, &dns):
		// Go's words name the resolver's address, which says nothing
		// about the host; the name and what resolving it met do.
		ce.Reason = fmt.Sprintf("%s doesn't resolve: %s", dns.Name, dns.Err)
		ce.Err = ErrUnknownHost
		ce.Hints = []string{fmt.Sprintf("check the host name %q: is it spelled right, does it resolve here (getent hosts %s), or is it a Host alias missing from your ~/.ssh/config?", cfg.HostName, shellWord(cfg.HostName))}
	case errors.Is(err, syscall.ECONNREFUSED):
		ce.Err = ErrRefused
		ce.Hints = []string{fmt.Sprintf("check that sshd runs on %s and listens on port %s (the target's port, or Port in your ssh config)", cfg.HostName, port)}
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH),
		errors.As(err, &timeout) && timeout.Timeout():
		ce.Err = ErrUnreachable
		ce.Hints = []string{fmt.Sprintf("check that %s is up and reachable from here, and that no firewall drops port %s", cfg.HostName, port)}
	}
	return ce
}

// authError is a login the server refused, found by the auth callback
// (authCheck) rather than read from the ssh package's message.
type authError struct {
	user, host string
	offered    int      // the keys offered
	methods    []string // the methods the server takes, when no key is among them
}

func (e *authError) Error() string { return e.connectError().Reason }

func (e *authError) connectError() *ConnectError {
	ce := &ConnectError{Err: ErrAuth}
	switch {
	case e.methods != nil:
		ce.Reason = fmt.Sprintf("%s@%s takes no key login (it offers %s)", e.user, e.host, strings.Join(e.methods, ", "))
		ce.Hints = []string{fmt.Sprintf("Zap logs in with keys only: check that sshd on %s has PubkeyAuthentication yes and %s's ~/.ssh/authorized_keys holds your public key", e.host, e.user)}
	case e.offered == 0:
		ce.Reason = fmt.Sprintf("no key to log in to %s@%s with: the ssh agent holds none and no identity file was found", e.user, e.host)
		ce.Hints = []string{"check that your ssh agent is running and holds your key (ssh-add -l; SSH_AUTH_SOCK), or name a key with identity in the target or IdentityFile in your ssh config"}
	default:
		ce.Reason = fmt.Sprintf("%s@%s accepted none of the %d key(s) offered", e.user, e.host, e.offered)
		ce.Hints = []string{fmt.Sprintf("check that %s's ~/.ssh/authorized_keys on %s holds one of your public keys (ssh-add -L lists the agent's), and that the target's user is the account you mean", e.user, e.host)}
	}
	return ce
}

// authCheck is the ClientConfig.AuthCallback that ends a login the server
// refused with an *authError: once the public keys were tried and failed
// (offered says how many there were), or at once when the server takes no
// key. It lets the ssh package go on otherwise.
func authCheck(user, host string, offered *int) ssh.ClientAuthCallback {
	return func(c *ssh.ClientAuthContext) (ssh.AuthMethod, error) {
		switch {
		case len(c.PartialSuccessMethods) > 0:
			return nil, nil
		case slices.Contains(c.TriedMethods, "publickey"):
			return nil, &authError{user: user, host: host, offered: *offered}
		case !slices.Contains(c.AllowedMethods, "publickey"):
			return nil, &authError{user: user, host: host, methods: c.AllowedMethods}
		}
		return nil, nil
	}
}

// counted is signers, noting in n how many keys it gave.
func counted(signers func() ([]ssh.Signer, error), n *int) func() ([]ssh.Signer, error) {
	return func() ([]ssh.Signer, error) {
		s, err := signers()
		*n = len(s)
		return s, err
	}
}
