package declaration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
)

// User is a Unix account. An attribute left out is not managed.
type User struct {
	// The account name: a lowercase letter or _, then lowercase letters,
	// digits, _ or -, optionally ending in $. Not root.
	Username string `json:"username" zap:"instead=account"`
	// The login shell, such as /bin/bash. Takes no reference.
	Shell string `json:"shell,omitempty" zap:"instead=login_shell"`
	// The octal mode of /home/<username>, such as '711'.
	HomeMode string `json:"home_mode,omitempty" zap:"mode"`
	// The account's authorized_keys, authoritative: keys not declared are
	// removed. Setting it also makes the password field *.
	SSHKeys *SSHKeys `json:"ssh_keys,omitempty"`
	// A user's sudo grant: every command in a mode, listed commands in a
	// mode, or false to remove the user's sudoers file.
	Sudo *Sudo `json:"sudo,omitempty" zap:"hook=sudo" ts:"Sudo"`
	// Supplementary groups the user is added to. Additive: groups not
	// listed are left alone.
	Groups []string `json:"groups,omitempty" zap:"instead=account"`
}

// SSHKeys is a user's authorized_keys: copied from another account, or the
// listed keys. Exactly one is set in a valid declaration.
type SSHKeys struct {
	// Another account whose authorized_keys are copied.
	CopyFrom string `json:"copy_from,omitempty" zap:"instead=account"`
	// The public keys, one authorized_keys line each.
	Keys []string `json:"keys,omitempty" zap:"instead=ssh_key"`
}

// Sudo is a user's sudo grant. Its JSON is false (Remove), "nopasswd" or
// "password" (every command), or {"mode": ..., "commands": [...]}.
type Sudo struct {
	Remove   bool
	Mode     string
	Commands []string
}

func (x *User) CheckForm() *Finding {
	if !ValidAccount(x.Username) {
		return fieldf("username", "%q is not an account name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)", x.Username)
	}
	if x.Username == "root" {
		return fieldf("username", "zap doesn't manage root (its home is /root, not /home/root); manage root's files with file and directory resources")
	}
	if x.Shell != "" {
		if err := checkAbs(x.Shell); err != nil {
			return fieldf("shell", "%v", err)
		}
	}
	if x.HomeMode != "" && !ValidMode(x.HomeMode) {
		return fieldf("home_mode", "%q is not an octal mode of 7777 at most, such as \"711\"", x.HomeMode)
	}
	if m := x.SSHKeys.check(); m != nil {
		return m
	}
	if m := x.Sudo.check(); m != nil {
		return m
	}
	for i, g := range x.Groups {
		if !ValidAccount(g) {
			return fieldf(fmt.Sprintf("groups[%d]", i), "%q is not a group name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)", g)
		}
	}
	return nil
}

// check checks the keys of a user that declares them (k isn't nil).
func (k *SSHKeys) check() *fieldMsg {
	switch {
	case k == nil:
		return nil
	case k.CopyFrom != "" && k.Keys != nil:
		return fieldf("ssh_keys", "takes copy_from or keys, never both")
	case k.CopyFrom == "" && k.Keys == nil:
		return fieldf("ssh_keys", "takes copy_from or keys")
	case k.CopyFrom != "" && !ValidAccount(k.CopyFrom):
		return fieldf("ssh_keys.copy_from", "%q is not an account name", k.CopyFrom)
	case k.Keys != nil && len(k.Keys) == 0:
		return fieldf("ssh_keys.keys", "holds no key: list one key or more, or use copy_from")
	}
	for i, key := range k.Keys {
		at := fmt.Sprintf("ssh_keys.keys[%d]", i)
		if strings.TrimSpace(key) == "" {
			return fieldf(at, "is blank")
		}
		if err := oneLine(key); err != nil {
			return fieldf(at, "a key is one line: %v", err)
		}
	}
	return nil
}

// check checks a grant (s isn't nil and doesn't remove one).
func (s *Sudo) check() *fieldMsg {
	if s == nil || s.Remove {
		return nil
	}
	if !slices.Contains(SudoModes, s.Mode) {
		return fieldf("sudo", "%q is not a sudo grant: 'nopasswd', 'password', {mode, commands} or false", s.Mode)
	}
	if s.Commands != nil && len(s.Commands) == 0 {
		return fieldf("sudo.commands", "is empty: for a grant of every command, write the mode alone")
	}
	for i, c := range s.Commands {
		at := fmt.Sprintf("sudo.commands[%d]", i)
		if strings.TrimSpace(c) == "" {
			return fieldf(at, "is blank")
		}
		for _, ch := range c {
			if ch < 0x20 || ch == 0x7f {
				return fieldf(at, "holds a control character (U+%04X)", ch)
			}
		}
	}
	return nil
}

func (x *User) Clone() Body {
	c := *x
	if c.SSHKeys = clonePtr(x.SSHKeys); c.SSHKeys != nil {
		c.SSHKeys.Keys = slices.Clone(x.SSHKeys.Keys)
	}
	if c.Sudo = clonePtr(x.Sudo); c.Sudo != nil {
		c.Sudo.Commands = slices.Clone(x.Sudo.Commands)
	}
	c.Groups = slices.Clone(x.Groups)
	return &c
}

func (x *User) Texts(map[string]Text) {}

func (k *SSHKeys) DecodeField(path string, raw json.RawMessage) error {
	f := strict.NewFields(path, raw)
	f.Opt("copy_from", &k.CopyFrom)
	if f.Has("keys") {
		k.Keys = []string{}
		f.Opt("keys", &k.Keys)
	}
	return f.Done()
}

func (s *Sudo) DecodeField(path string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case string(raw) == "false":
		*s = Sudo{Remove: true}
		return nil
	case string(raw) == "true":
		return &canon.PathError{Path: path, Msg: "true grants nothing: write 'nopasswd' or 'password' to grant sudo, or false to remove the grant"}
	case len(raw) > 0 && raw[0] == '"':
		var mode string
		if err := json.Unmarshal(raw, &mode); err != nil {
			return &canon.PathError{Path: path, Msg: err.Error()}
		}
		*s = Sudo{Mode: mode}
		return nil
	case len(raw) > 0 && raw[0] == '{':
		f := strict.NewFields(path, raw)
		f.Req("mode", &s.Mode)
		s.Commands = []string{}
		f.Req("commands", &s.Commands)
		return f.Done()
	}
	return &canon.PathError{Path: path, Msg: `want "nopasswd", "password", false or {"mode": ..., "commands": [...]}`}
}

func (s Sudo) MarshalJSON() ([]byte, error) {
	switch {
	case s.Remove:
		return []byte("false"), nil
	case s.Commands == nil:
		return json.Marshal(s.Mode)
	}
	return json.Marshal(struct {
		Mode     string   `json:"mode"`
		Commands []string `json:"commands"`
	}{s.Mode, s.Commands})
}

// UnmarshalJSON decodes strictly; DecodeField does the work.
func (k *SSHKeys) UnmarshalJSON(data []byte) error { return k.DecodeField("", data) }

// UnmarshalJSON decodes strictly; DecodeField does the work.
func (s *Sudo) UnmarshalJSON(data []byte) error { return s.DecodeField("", data) }

func (x *User) manages(string) []managed {
	return []managed{{"username", "account", x.Username, "the account " + x.Username, false}}
}
