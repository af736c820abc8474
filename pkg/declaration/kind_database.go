package declaration

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/zap-go/zap/internal/strict"
)

// Database is a PostgreSQL database and the role that owns it.
type Database struct {
	// The database server: 'postgresql' is the only engine.
	Engine string `json:"engine" zap:"instead=engine,enum=postgresql"`
	// Takes a reference.
	DatabaseName Text `json:"database_name"`
	// The owning role. Takes a reference.
	Username Text `json:"username"`
	// The pg_hba.conf rules to add; without it, the role is reached over
	// the Unix socket by the OS account of its name.
	Auth *DatabaseAuth `json:"auth,omitempty"`
}

// DatabaseAuth is the pg_hba.conf rules a database adds: the client addresses
// and their method.
type DatabaseAuth struct {
	// Client addresses with their prefix length, such as '127.0.0.1/32';
	// at least one.
	Hosts []Text `json:"hosts"`
	// How those clients authenticate: scram-sha-256, md5, password, gss,
	// ident, pam or reject. Default 'scram-sha-256'.
	Method string `json:"method,omitempty" zap:"instead=auth_method" ts:"DatabaseAuthMethod"`
}

func (x *Database) CheckForm() *Finding {
	if x.Engine != "postgresql" {
		return fieldf("engine", "%q is not an engine (want postgresql)", x.Engine)
	}
	if err := checkHBA(x.DatabaseName, "database"); err != nil {
		return fieldf("database_name", "%v", err)
	}
	if err := checkHBA(x.Username, "role"); err != nil {
		return fieldf("username", "%v", err)
	}
	a := x.Auth
	if a == nil {
		return nil
	}
	if len(a.Hosts) == 0 {
		return fieldf("auth.hosts", "lists no address: write one or more, such as '127.0.0.1/32'")
	}
	for i, h := range a.Hosts {
		if err := checkHBAHost(h); err != nil {
			return fieldf(fmt.Sprintf("auth.hosts[%d]", i), "%v", err)
		}
	}
	if why, bad := refusedMethods[a.Method]; bad {
		return fieldf("auth.method", "%q is refused: %s", a.Method, why)
	}
	if a.Method != "" && !slices.Contains(DatabaseAuthMethods, a.Method) {
		return fieldf("auth.method", "%q is not a pg_hba auth method", a.Method)
	}
	return nil
}

func (x *Database) Clone() Body {
	c := *x
	if c.Auth = clonePtr(x.Auth); c.Auth != nil {
		c.Auth.Hosts = slices.Clone(x.Auth.Hosts)
	}
	return &c
}

func (x *Database) Texts(out map[string]Text) {
	out["database_name"] = x.DatabaseName
	out["username"] = x.Username
	if x.Auth != nil {
		for i, h := range x.Auth.Hosts {
			out[fmt.Sprintf("auth.hosts[%d]", i)] = h
		}
	}
}

func (a *DatabaseAuth) DecodeField(path string, raw json.RawMessage) error {
	return strict.DecodeTagged(path, raw, a)
}

// UnmarshalJSON decodes strictly; DecodeField does the work.
func (a *DatabaseAuth) UnmarshalJSON(data []byte) error { return a.DecodeField("", data) }

var refusedMethods = map[string]string{
	"trust":  "a trusted TCP rule lets any account on the machine connect as the role with no credential",
	"peer":   "PostgreSQL accepts peer only on a Unix-socket line, the route a database with no auth already takes",
	"cert":   "cert is accepted only on a hostssl line",
	"ldap":   "ldap needs options Zap doesn't write",
	"radius": "radius needs options Zap doesn't write",
	"sspi":   "PostgreSQL doesn't build sspi on Linux",
	"bsd":    "PostgreSQL doesn't build bsd on Linux",
}

// CheckHBAName checks a database (what "database") or role ("role") name as
// pg_hba.conf would read it.
func CheckHBAName(s, what string) error {
	if s == "" {
		return fmt.Errorf("is blank")
	}
	for _, r := range s {
		if r <= 0x20 || r == 0x7f || r == '#' || r == '"' || r == ',' {
			return fmt.Errorf("%q holds whitespace, #, \", , or a control character, which pg_hba.conf would read as something else", s)
		}
	}
	if strings.ContainsAny(s[:1], "+@/-") {
		return fmt.Errorf("%q begins with %s, which pg_hba.conf reads as something else", s, s[:1])
	}
	switch {
	case what == "database" && slices.Contains([]string{"all", "sameuser", "samerole", "samegroup", "replication"}, s):
		return fmt.Errorf("%q is a keyword in pg_hba.conf's database column", s)
	case what == "role" && s == "all":
		return fmt.Errorf("\"all\" is a keyword in pg_hba.conf's user column")
	}
	return nil
}

func checkHBA(t Text, what string) error {
	if t.IsZero() {
		return fmt.Errorf("is blank")
	}
	if s, ok := t.Plain(); ok {
		return CheckHBAName(s, what)
	}
	return nil
}

// isCIDR reports whether s is an IP address and a prefix length no longer
// than the address, as net.ParseCIDR takes them (an address without a
// zone, the length in decimal digits, leading zeros and all), written with
// net/netip so the declaration's checks import nothing that does I/O.
func isCIDR(s string) bool {
	addr, bits, ok := strings.Cut(s, "/")
	ip, err := netip.ParseAddr(addr)
	if !ok || err != nil || ip.Zone() != "" || bits == "" {
		return false
	}
	n := 0
	for _, c := range []byte(bits) {
		if c < '0' || c > '9' {
			return false
		}
		if n = n*10 + int(c-'0'); n > ip.BitLen() {
			return false
		}
	}
	return true
}

// CheckHBAHost checks an auth.hosts entry: an IP address with its prefix
// length.
func CheckHBAHost(s string) error {
	if !isCIDR(s) || strings.ContainsAny(s, " \t") {
		return fmt.Errorf("%q is not an IP address with its prefix length, such as '127.0.0.1/32'", s)
	}
	return nil
}

func checkHBAHost(t Text) error {
	if t.IsZero() {
		return fmt.Errorf("is blank")
	}
	if s, ok := t.Plain(); ok {
		return CheckHBAHost(s)
	}
	return nil
}

func (x *Database) manages(string) []managed {
	return []managed{{"database_name", "database", textKey(x.DatabaseName), "the database " + x.DatabaseName.String(), false}}
}

// PgMethod is the auth method of the rules: the declared one, or
// scram-sha-256.
func (a *DatabaseAuth) PgMethod() string {
	if a.Method == "" {
		return "scram-sha-256"
	}
	return a.Method
}
