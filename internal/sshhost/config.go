package sshhost

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Config is what the operator's ssh would use to reach a host: the
// settings of `ssh -G` Zap acts on.
type Config struct {
	// Host is the name as given (a ~/.ssh/config alias or a host name).
	Host string
	// HostName is where to connect.
	HostName string
	// User is the connecting user ssh chose ("" when it printed none).
	User string
	Port int
	// IdentityFiles are the private keys to try, ~ expanded.
	IdentityFiles []string
	// KnownHosts are the UserKnownHostsFile entries, ~ expanded; Global the
	// GlobalKnownHostsFile ones, read but never written.
	KnownHosts []string
	Global     []string
	// HashKnownHosts makes a first-use entry hashed.
	HashKnownHosts bool
	// HostKeyAlias, when set, is the name the host's key is filed under.
	HostKeyAlias string
	// ProxyJump is the jump hosts, comma separated ("" for none).
	ProxyJump string
	// ProxyCommand is set when the config names one (Zap refuses it).
	ProxyCommand string
	// ConnectTimeout is in seconds; 0 is none set.
	ConnectTimeout int
}

// ReadConfig runs `ssh -G [-p port] [-l user] host` and reads the settings
// Zap uses. home is what ~ in a path expands to.
func ReadConfig(ctx context.Context, host, user string, port int, home string) (*Config, error) {
	args := []string{"-G"}
	if port != 0 {
		args = append(args, "-p", strconv.Itoa(port))
	}
	if user != "" {
		args = append(args, "-l", user)
	}
	args = append(args, host)
	cmd := exec.CommandContext(ctx, "ssh", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			msg := strings.TrimSpace(firstLine(stderr.String()))
			if msg == "" {
				msg = err.Error()
			}
			return nil, fmt.Errorf("ssh -G couldn't read your ssh config: %s", msg)
		}
		return nil, fmt.Errorf("run ssh -G to read your ssh config: %w", err)
	}
	return parseConfig(host, out, home)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func parseConfig(host string, out []byte, home string) (*Config, error) {
	c := &Config{Host: host}
	expand := func(p string) string {
		if p == "~" {
			return home
		}
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			return filepath.Join(home, rest)
		}
		return p
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		key, value, _ := strings.Cut(sc.Text(), " ")
		switch strings.ToLower(key) {
		case "hostname":
			c.HostName = value
		case "user":
			c.User = value
		case "port":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 || n > 65535 {
				return nil, fmt.Errorf("ssh -G printed a port that isn't one: %q", value)
			}
			c.Port = n
		case "identityfile":
			c.IdentityFiles = append(c.IdentityFiles, expand(value))
		case "userknownhostsfile":
			for _, f := range strings.Fields(value) {
				c.KnownHosts = append(c.KnownHosts, expand(f))
			}
		case "globalknownhostsfile":
			for _, f := range strings.Fields(value) {
				c.Global = append(c.Global, expand(f))
			}
		case "hashknownhosts":
			c.HashKnownHosts = value == "yes"
		case "hostkeyalias":
			c.HostKeyAlias = value
		case "proxyjump":
			if value != "none" {
				c.ProxyJump = value
			}
		case "proxycommand":
			if value != "none" {
				c.ProxyCommand = value
			}
		case "connecttimeout":
			if n, err := strconv.Atoi(value); err == nil {
				c.ConnectTimeout = n
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read ssh -G's output: %w", err)
	}
	if c.HostName == "" {
		c.HostName = host
	}
	if c.Port == 0 {
		c.Port = 22
	}
	return c, nil
}

// Recorded reports whether a host key can be recorded: some
// UserKnownHostsFile isn't /dev/null.
func (c *Config) Recorded() bool {
	for _, f := range c.KnownHosts {
		if f != "/dev/null" {
			return true
		}
	}
	return false
}
