package evaluate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dop251/goja"

	"github.com/zap-go/zap/internal/suggest"
)

// members holds the zap object's own properties: the builder's methods and
// whatever the config sets on it. It notes the last name the config read
// that the object lacks, and where, so that the interpreter's "Object has
// no member" for a call of zap.dir(...) can be told from the same error
// for another object, and answered in Zap's words.
type members struct {
	b    *builder
	vals map[string]goja.Value
	keys []string
	// missed is the last name read that the object lacks, missedAt where
	// the config read it.
	missed, missedAt string
}

func (m *members) Get(key string) goja.Value {
	if v, ok := m.vals[key]; ok {
		return v
	}
	m.missed, m.missedAt = key, m.b.pos.caller(m.b.rt)
	return nil
}

func (m *members) Set(key string, val goja.Value) bool {
	if _, ok := m.vals[key]; !ok {
		m.keys = append(m.keys, key)
	}
	m.vals[key] = val
	return true
}

func (m *members) Has(key string) bool {
	_, ok := m.vals[key]
	return ok
}

func (m *members) Delete(key string) bool {
	if _, ok := m.vals[key]; ok {
		delete(m.vals, key)
		for i, k := range m.keys {
			if k == key {
				m.keys = append(m.keys[:i], m.keys[i+1:]...)
				break
			}
		}
	}
	return true
}

func (m *members) Keys() []string { return append([]string(nil), m.keys...) }

// Zap's names for what other tools call a resource or module, by the name
// a config may write for it.
var (
	isFile = "a file, whatever its content, is zap.file: content {type: 'inline'}, " +
		"{type: 'template'}, {type: 'source'} (a file already on the target) or {type: 'remote'} (a URL)"
	isDirectory = "a directory is zap.directory"
	isLink      = "a symbolic link is zap.link"
	isPkg       = "a package is zap.pkg"
	isApt       = "a package is zap.pkg, and an apt source with its key zap.apt_repo"
	isAptRepo   = "an apt source with its key is zap.apt_repo"
	isScript    = "a command is run by zap.script (its check says when it needs to run)"
	isService   = "a service is zap.service"
	isUser      = "an account is zap.user"
	isFirewall  = "a firewall is zap.firewall"
	isDatabase  = "a database is zap.database"
	isVerify    = "an assertion about the target is zap.verify"
	isInstall   = "a package is zap.pkg, and an installer script fetched and run zap.installer"
	theirNames  = map[string]string{
		"dir": isDirectory, "dirs": isDirectory, "mkdir": isDirectory, "folder": isDirectory, "directories": isDirectory,
		"symlink": isLink, "symlinks": isLink, "ln": isLink, "softlink": isLink, "links": isLink,
		"package": isPkg, "packages": isPkg, "pkgs": isPkg, "yum": isPkg, "dnf": isPkg, "apk": isPkg, "pacman": isPkg,
		"apt": isApt, "apt_get": isApt, "aptget": isApt, "install": isInstall,
		"repo": isAptRepo, "repository": isAptRepo, "apt_source": isAptRepo, "apt_repository": isAptRepo, "ppa": isAptRepo,
		"copy": isFile, "cp": isFile, "template": isFile, "templates": isFile, "content": isFile, "files": isFile,
		"write": isFile, "write_file": isFile, "lineinfile": isFile, "blockinfile": isFile,
		"get_url": isFile, "download": isFile, "fetch": isFile,
		"command": isScript, "commands": isScript, "cmd": isScript, "exec": isScript, "execute": isScript,
		"shell": isScript, "sh": isScript, "bash": isScript, "run": isScript, "scripts": isScript,
		"systemd": isService, "systemd_unit": isService, "unit": isService, "daemon": isService, "svc": isService, "services": isService,
		"account": isUser, "users": isUser, "useradd": isUser,
		"ufw": isFirewall, "iptables": isFirewall, "nftables": isFirewall, "nft": isFirewall, "firewalld": isFirewall,
		"db": isDatabase, "postgres": isDatabase, "postgresql": isDatabase,
		"assert": isVerify, "check": isVerify, "test": isVerify,
	}
)

// noMethod is Zap's error for a call at pos of a method the zap object
// lacks, listing the kinds it has, with a hint: what Zap calls the thing
// when the name is another tool's, else the method it reads as a typo of.
// The interpreter's own error says "Object has no member".
func (b *builder) noMethod(name, pos string) *Error {
	hint, ok := theirNames[name]
	if !ok {
		if near, isNear := suggest.Closest(name, b.methods); isNear {
			hint = fmt.Sprintf("did you mean zap.%s?", near)
		}
	}
	var other []string
	for _, m := range b.methods {
		if !slices.Contains(b.kinds, m) {
			other = append(other, m)
		}
	}
	list := "the kinds of resource (zap.KIND): " + strings.Join(b.kinds, ", ") +
		"; zap also has " + strings.Join(other[:len(other)-1], ", ") + " and " + other[len(other)-1]
	return &Error{Pos: pos, Msg: fmt.Sprintf("zap has no method %q", name), Detail: wrap(list, 72), Hint: hint}
}

// wrap breaks s at spaces into tab-indented lines of at most width
// characters (a longer word makes a longer line).
func wrap(s string, width int) string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(s) {
		if cur != "" && len(cur)+1+len(w) > width {
			lines = append(lines, "\t"+cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	return strings.Join(append(lines, "\t"+cur), "\n")
}
