package sshhost

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/internal/vocab"
)

// keyError is a host key Zap refuses.
type keyError struct {
	cfg     *Config
	name    string        // the host as its key is filed
	key     ssh.PublicKey // the key the host showed
	changed bool
	file    string // where the recorded key is
	line    int
	// strict is the StrictHostKeyChecking setting that refuses a key not
	// on record ("yes" or "ask"), "" for a key refused for another reason.
	strict string
	err    error // a revoked key, or a failure to record one
}

func (e *keyError) Error() string { return e.connectError().Reason }

func (e *keyError) connectError() *ConnectError {
	switch {
	case e.changed:
		ce := &ConnectError{
			Err:    ErrHostKeyChanged,
			Reason: fmt.Sprintf("the host key of %s has changed from the one recorded in %s:%d", e.name, e.file, e.line),
			Hints: []string{
				fmt.Sprintf("a changed key can mean someone is in the middle of the connection; check the new key, %s, with the host's administrator", keyDesc(e.key)),
				fmt.Sprintf("if the host was reinstalled, remove its old key with ssh-keygen -R %s", shellWord(e.name)),
			},
		}
		if e.cfg.StrictHostKeyChecking == "no" {
			ce.Hints = append(ce.Hints, "Zap refuses a changed host key whatever StrictHostKeyChecking says")
		}
		return ce
	case e.strict != "":
		return e.unknownError()
	case e.err != nil:
		return &ConnectError{Reason: fmt.Sprintf("the host key of %s: %v", e.name, e.err)}
	}
	return &ConnectError{Reason: "the host key of " + e.name + " was refused"}
}

// unknownError is the refusal of a host key known_hosts doesn't hold, when
// the config's StrictHostKeyChecking (yes or ask) says not to trust it on
// first use: the key's fingerprint, and how to add it once checked.
func (e *keyError) unknownError() *ConnectError {
	file := e.cfg.recordFile()
	ce := &ConnectError{
		Err: ErrHostKeyUnknown,
		Reason: fmt.Sprintf("the host key of %s (%s) is not in known_hosts, and your ssh config sets StrictHostKeyChecking %s for %s, so Zap doesn't trust it on first use",
			e.name, keyDesc(e.key), e.strict, e.cfg.Host),
	}
	add := fmt.Sprintf("ssh-keyscan%s -t %s%s %s >> %s", hashFlag(e.cfg), keyscanType(e.key), portFlag(e.cfg.Port), shellWord(e.cfg.HostName), tildePath(file, e.cfg.Home))
	if e.cfg.HostKeyAlias != "" {
		// ssh-keyscan files a key under the host's name, not the alias.
		add = fmt.Sprintf("echo %s >> %s", vocab.Quote(knownhosts.Line([]string{e.name}, e.key)), tildePath(file, e.cfg.Home))
	}
	ce.Hints = []string{fmt.Sprintf("check with the host's administrator that its key is %s, then add it: %s", keyDesc(e.key), add)}
	if e.strict == "ask" {
		ce.Hints = append(ce.Hints, fmt.Sprintf("or connect once with ssh %s, which asks you to check the key: a Zap stage can't ask", shellWord(e.cfg.Host)))
	}
	return ce
}

// keyDesc is a host key as OpenSSH names it to a person: its type and
// SHA256 fingerprint ("ED25519 SHA256:...").
func keyDesc(k ssh.PublicKey) string {
	if k == nil {
		return "unknown key"
	}
	return keyTypeName(k.Type()) + " " + ssh.FingerprintSHA256(k)
}

func keyTypeName(t string) string {
	switch {
	case t == ssh.KeyAlgoED25519:
		return "ED25519"
	case t == ssh.KeyAlgoSKED25519:
		return "ED25519-SK"
	case t == ssh.KeyAlgoSKECDSA256:
		return "ECDSA-SK"
	case strings.HasPrefix(t, "ecdsa-"):
		return "ECDSA"
	case t == ssh.KeyAlgoRSA:
		return "RSA"
	}
	return t
}

// keyscanType is the -t of ssh-keyscan for a key.
func keyscanType(k ssh.PublicKey) string {
	return strings.ToLower(keyTypeName(k.Type()))
}

func hashFlag(c *Config) string {
	if c.HashKnownHosts {
		return " -H"
	}
	return ""
}

func portFlag(port int) string {
	if port == 22 {
		return ""
	}
	return " -p " + strconv.Itoa(port)
}

// tildePath is path with home written as ~, quoted for a shell where it
// needs it.
func tildePath(path, home string) string {
	if home != "" && home != "/" {
		if rest, ok := strings.CutPrefix(path, strings.TrimSuffix(home, "/")+"/"); ok && rest == shellWord(rest) {
			return "~/" + rest
		}
	}
	return shellWord(path)
}

// shellWord is s as one shell word, quoted where it needs it.
func shellWord(s string) string { return opcmd.Quote(s) }

// recordFile is the known hosts file a first-seen key goes in: the first
// UserKnownHostsFile that isn't /dev/null.
func (c *Config) recordFile() string {
	for _, f := range c.KnownHosts {
		if f != "/dev/null" {
			return f
		}
	}
	return ""
}

// knownFiles reads the known hosts files of cfg that exist into a check.
// A file that isn't a regular file, or is larger than maxKnownHostsFile, is
// refused (ErrConfig), naming it and its setting.
func knownFiles(cfg *Config) (ssh.HostKeyCallback, error) {
	var paths, names []string
	for i, f := range append(append([]string{}, cfg.KnownHosts...), cfg.Global...) {
		if f == "/dev/null" {
			continue
		}
		setting := "UserKnownHostsFile"
		if i >= len(cfg.KnownHosts) {
			setting = "GlobalKnownHostsFile"
		}
		fh, err := openRegular(f, maxKnownHostsFile)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			ce := &ConnectError{Reason: fmt.Sprintf("your ssh config's %s %s: %v", setting, f, err)}
			if !errors.Is(err, fs.ErrPermission) {
				ce.Err = ErrConfig
				ce.Hints = []string{fmt.Sprintf("name a regular file of at most %d MiB there, or /dev/null beside another", maxKnownHostsFile>>20)}
			}
			return nil, ce
		}
		defer fh.Close()
		// knownhosts reads each file whole here, through the descriptor
		// checked, so a file swapped for a fifo after the check isn't read.
		paths = append(paths, "/proc/self/fd/"+strconv.Itoa(int(fh.Fd())))
		names = append(names, f)
	}
	if len(paths) == 0 {
		return func(string, net.Addr, ssh.PublicKey) error { return &knownhosts.KeyError{} }, nil
	}
	cb, err := knownhosts.New(paths...)
	if err != nil {
		for i, p := range paths {
			err = errors.New(strings.ReplaceAll(err.Error(), p, names[i]))
		}
		return nil, &ConnectError{Reason: fmt.Sprintf("read known hosts: %v", err)}
	}
	return func(addr string, remote net.Addr, key ssh.PublicKey) error {
		err := cb(addr, remote, key)
		var ke *knownhosts.KeyError
		if errors.As(err, &ke) {
			for i := range ke.Want {
				for j, p := range paths {
					if ke.Want[i].Filename == p {
						ke.Want[i].Filename = names[j]
					}
				}
			}
		}
		return err
	}, nil
}

// hostKeys is the host key check for cfg: against the known hosts files
// that exist, a changed key refused; a key seen for the first time
// recorded in the first UserKnownHostsFile (notice told so), or refused
// when the config's StrictHostKeyChecking is yes or ask. It also gives the
// key algorithms to ask for, those of the keys already recorded for the
// host.
func hostKeys(cfg *Config, notice func(string)) (ssh.HostKeyCallback, []string, error) {
	name := cfg.HostName
	if cfg.HostKeyAlias != "" {
		name = cfg.HostKeyAlias
	}
	addr := net.JoinHostPort(name, strconv.Itoa(cfg.Port))
	filed := knownhosts.Normalize(addr)
	check, err := knownFiles(cfg)
	if err != nil {
		return nil, nil, err
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
			return &keyError{cfg: cfg, name: filed, key: key, err: errors.New("it is revoked")}
		case errors.As(err, &ke) && len(ke.Want) > 0:
			return &keyError{cfg: cfg, name: filed, key: key, changed: true, file: ke.Want[0].Filename, line: ke.Want[0].Line}
		case errors.As(err, &ke) && (cfg.StrictHostKeyChecking == "yes" || cfg.StrictHostKeyChecking == "ask"):
			return &keyError{cfg: cfg, name: filed, key: key, strict: cfg.StrictHostKeyChecking}
		case errors.As(err, &ke):
			mu.Lock()
			defer mu.Unlock()
			if err := record(cfg, filed, key); err != nil {
				return &keyError{cfg: cfg, name: filed, key: key, err: fmt.Errorf("record it: %w", err)}
			}
			if notice != nil {
				notice(fmt.Sprintf("added host key for %s (%s) to %s", filed, keyDesc(key), tildePath(cfg.recordFile(), cfg.Home)))
			}
			return nil
		}
		return &keyError{cfg: cfg, name: filed, key: key, err: err}
	}
	return cb, algos, nil
}

// record appends a first-seen host key to the first UserKnownHostsFile,
// made when missing; one that is there must be a regular file.
func record(cfg *Config, filed string, key ssh.PublicKey) error {
	file := cfg.recordFile()
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	host := filed
	if cfg.HashKnownHosts {
		host = knownhosts.HashHostname(filed)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o600)
	if err != nil {
		return err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s is %s, not a regular file", file, fileKind(fi.Mode()))
		}
		return err
	}
	if _, err := f.WriteString(knownhosts.Line([]string{host}, key) + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Warn is a Target.Notice that writes each notice to w as a warning line,
// as a stage's warnings go (zap passes them on).
func Warn(w io.Writer) func(string) {
	return func(s string) { fmt.Fprintf(w, "warning: %s\n", escape.Line(s)) }
}
