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
	// StrictHostKeyChecking is the config's setting for a host key not on
	// record: "yes", "accept-new", "ask" or "no", or "" when the config
	// sets none (ssh -G prints "ask" for both; see explicitAsk).
	StrictHostKeyChecking string
	// Home is what ~ expanded to.
	Home string
}

// ReadConfig runs `ssh -G [-p port] [-l user] host` and reads the settings
// Zap uses. home is what ~ in a path expands to.
func ReadConfig(ctx context.Context, host, user string, port int, home string) (*Config, error) {
	// -v makes ssh name each config file it reads (explicitAsk).
	args := []string{"-G", "-v"}
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
			msg := strings.TrimSpace(firstLine(withoutDebug(stderr.String())))
			if msg == "" {
				msg = err.Error()
			}
			return nil, fmt.Errorf("ssh -G couldn't read your ssh config: %s", msg)
		}
		return nil, fmt.Errorf("run ssh -G to read your ssh config: %w", err)
	}
	c, err := parseConfig(host, out, home)
	if err != nil {
		return nil, err
	}
	if c.StrictHostKeyChecking == "ask" && !explicitAsk(configFiles(stderr.String())) {
		c.StrictHostKeyChecking = ""
	}
	return c, nil
}

// withoutDebug is ssh's stderr without what -v adds: its version line and
// the debug lines.
func withoutDebug(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "debug") && !strings.HasPrefix(l, "OpenSSH_") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// configFiles is the config files ssh -v says it read, in order.
func configFiles(stderr string) []string {
	var files []string
	for _, l := range strings.Split(stderr, "\n") {
		if f, ok := strings.CutPrefix(l, "debug1: Reading configuration data "); ok {
			files = append(files, strings.TrimSpace(f))
		}
	}
	return files
}

// maxConfigFile bounds how much of an ssh config file explicitAsk reads.
const maxConfigFile = 1 << 20

// explicitAsk reports whether some config file ssh read sets
// StrictHostKeyChecking ask. ssh -G prints ask both for a config that sets
// it and for one that sets nothing (ask is ssh's default), and Zap treats
// the two apart: a host key never seen is trusted on first use when the
// config says nothing, and refused when it says ask (a stage can't ask).
// An ask written for some other host counts too: the refusal it brings
// says how to add the key.
func explicitAsk(files []string) bool {
	for _, f := range files {
		data, err := readRegular(f, maxConfigFile)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(data), "\n") {
			key, value, ok := configLine(l)
			if ok && strings.EqualFold(key, "stricthostkeychecking") && strings.EqualFold(value, "ask") {
				return true
			}
		}
	}
	return false
}

// configLine splits an ssh config line into its keyword and value
// ("Key value", "Key=value", "Key = value"); ok is false for a blank line
// or a comment.
func configLine(l string) (key, value string, ok bool) {
	l = strings.TrimSpace(l)
	if l == "" || strings.HasPrefix(l, "#") {
		return "", "", false
	}
	i := strings.IndexAny(l, " \t=")
	if i < 0 {
		return l, "", true
	}
	key = l[:i]
	value = strings.TrimLeft(l[i:], " \t")
	value = strings.TrimLeft(strings.TrimPrefix(value, "="), " \t")
	return key, strings.Trim(strings.TrimSpace(value), `"`), true
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func parseConfig(host string, out []byte, home string) (*Config, error) {
	c := &Config{Host: host, Home: home}
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
		case "stricthostkeychecking":
			switch value {
			case "true", "yes":
				c.StrictHostKeyChecking = "yes"
			case "false", "no", "off":
				c.StrictHostKeyChecking = "no"
			default:
				c.StrictHostKeyChecking = value
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
