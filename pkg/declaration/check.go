package declaration

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
)

var (
	aptNamePattern     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9+._=~:/@-]*$`)
	aptArchPattern     = regexp.MustCompile(`^[a-z0-9-]+$`)
	serviceNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.@:-]*$`)
	blake3Pattern      = regexp.MustCompile(`^[0-9a-f]{64}$`)
	minisignPattern    = regexp.MustCompile(`^RW[A-Za-z0-9+/]{54}$`)
	sizePattern        = regexp.MustCompile(`^[0-9]+[KMGT]?$`)
	placeholderPattern = regexp.MustCompile(`\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}`)
	sharedPattern      = regexp.MustCompile(`^[A-Za-z0-9_.][A-Za-z0-9_.-]*$`)
)

// ValidPackageName reports whether name is one word in the syntax of the
// package manager, and a form whose query can find it installed (resources.md,
// Package names). It returns the reason when it isn't.
func ValidPackageName(manager, name string) (string, bool) {
	if !aptNamePattern.MatchString(name) || strings.HasSuffix(name, "-") {
		return "is not one word: a letter or digit, then letters, digits and + . _ - = ~ : / @, not ending in -", false
	}
	switch manager {
	case "apt":
		// apt-get takes the selector after the last = (a version) or /
		// (a suite), then the architecture after the : of what is left;
		// a version may hold a : of its own (an epoch, 1:2.0-1).
		base, sel := name, ""
		if i := strings.LastIndexAny(name, "=/"); i >= 0 {
			base, sel = name[:i], name[i:]
		}
		base, arch, hasArch := strings.Cut(base, ":")
		hasVersion, version := strings.HasPrefix(sel, "="), strings.TrimPrefix(sel, "=")
		switch {
		case strings.Contains(name, "=") && strings.Contains(name, "/"):
			return "names a version and a suite together, which names no package apt knows", false
		case strings.ContainsAny(base, "=/"):
			return "names more than one version or suite, which names no package apt knows", false
		case hasVersion && version == "":
			return "has an empty version (name=)", false
		case strings.HasSuffix(name, "/"):
			return "has an empty suite (name/)", false
		case hasArch && arch == "":
			return "has an empty architecture (name:)", false
		case hasArch && (arch == "any" || arch == "native"):
			return fmt.Sprintf("names the architecture %s, which dpkg records no package under; name the architecture, or none", arch), false
		case hasArch && arch == "all":
			return "names the architecture all, which apt reads as the native one; name the architecture, or none", false
		case hasArch && !aptArchPattern.MatchString(arch):
			return fmt.Sprintf("names the architecture %q, which isn't one word of lowercase letters, digits and -", arch), false
		}
	case "apk":
		switch {
		case strings.HasPrefix(name, "!"), strings.HasPrefix(name, "."):
			return "begins with ! or .", false
		case strings.Contains(name, ">") || strings.Contains(name, "<"):
			return "holds a version comparison", false
		}
		for _, op := range []string{"==", "=", "~"} {
			if strings.HasSuffix(name, op) {
				return "has a version operator with nothing after it", false
			}
		}
	}
	return "", true
}

// checkURL holds a URL to https:// with a host and no user:password@;
// loopback allows http:// for a loopback host. A URL that holds a reference
// is checked as far as its literal start goes, and again once it resolves.
func checkURL(t Text, loopback bool) error {
	if t.IsZero() {
		return fmt.Errorf("is blank")
	}
	if err := oneLine(t.String()); err != nil {
		return err
	}
	s, plain := t.Plain()
	if !plain {
		first := t.Parts()[0]
		if first.Env != "" {
			return nil
		}
		scheme, _, ok := strings.Cut(first.Lit, "://")
		if ok && scheme != "https" && !(loopback && scheme == "http") {
			return fmt.Errorf("want an https:// URL, not %s://", scheme)
		}
		return nil
	}
	return CheckURLValue(s, loopback)
}

// CheckURLValue checks a URL as written or once resolved.
func CheckURLValue(s string, loopback bool) error {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return fmt.Errorf("%q is not a URL: want https://host/path", s)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && loopback:
		if !loopbackHost(u.Hostname()) {
			return fmt.Errorf("http:// is accepted only for a loopback host (localhost, 127.0.0.0/8, [::1]); use https://")
		}
	default:
		return fmt.Errorf("want an https:// URL, not %s://", u.Scheme)
	}
	if u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("%q has no host", s)
	}
	if u.User != nil {
		return fmt.Errorf("holds a user or password (user:password@); a credential goes in auth, as a reference")
	}
	return nil
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func checkBlake3(pin string) error {
	if pin != "" && !blake3Pattern.MatchString(pin) {
		return fmt.Errorf("%q is not a blake3 pin: 64 lowercase hex digits", pin)
	}
	return nil
}

func checkAbs(p string) error {
	if p == "" {
		return fmt.Errorf("is blank")
	}
	if err := oneLine(p); err != nil {
		return err
	}
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("%q must be an absolute path", p)
	}
	return nil
}

func checkEnv(env map[string]Text, field string) *fieldMsg {
	names := make([]string, 0, len(env))
	for name := range env {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !ValidEnvName(name) {
			return &fieldMsg{field, fmt.Sprintf("%q is not an environment variable name", name)}
		}
		if strings.HasPrefix(name, "__zap_") {
			return &fieldMsg{field + "." + name, "a name can't begin with __zap_"}
		}
		if strings.ContainsRune(env[name].String(), 0) {
			return &fieldMsg{field + "." + name, "holds a NUL byte"}
		}
	}
	return nil
}

func checkExtract(e *Extract) *fieldMsg {
	if e == nil {
		return nil
	}
	if e.StripComponents != nil {
		if e.Type == ExtractNone {
			return &fieldMsg{"extract.strip_components", "strip_components goes with a tar extract, not none"}
		}
		if *e.StripComponents < 0 {
			return &fieldMsg{"extract.strip_components", "can't be negative"}
		}
	}
	return nil
}

// checkName requires a one-line, non-blank value not beginning with -.
func checkName(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("is blank")
	}
	if err := oneLine(s); err != nil {
		return err
	}
	if strings.HasPrefix(s, "-") {
		return fmt.Errorf("begins with -")
	}
	return nil
}

// validateKind runs the form checks of the kinds other than file, directory,
// link and script.
func (r *Resource) validateKind() *fieldMsg {
	fm := func(field, format string, args ...any) *fieldMsg {
		return &fieldMsg{field, fmt.Sprintf(format, args...)}
	}
	switch {
	case r.Package != nil:
		p := r.Package
		if len(p.From) == 0 {
			return fm("from", "names no package: write {apt: 'name'} and the like")
		}
		for _, m := range sortedMapKeys(p.From) {
			if !slices.Contains(PackageManagers, m) {
				return fm("from."+m, "%q is not a package manager (apt, apk, pacman or brew)", m)
			}
			if why, ok := ValidPackageName(m, p.From[m]); !ok {
				return fm("from."+m, "%q %s", p.From[m], why)
			}
		}
		if p.Check != nil {
			if err := checkCommand(*p.Check); err != nil {
				return fm("check", "%v", err)
			}
			if err := oneLine(p.Check.String()); err != nil {
				return fm("check", "%v", err)
			}
			if p.Check.HasRefs() && !isPathCheck(*p.Check) {
				return fm("check", "a command check takes no reference: a check is a path (beginning /, ~ or $HOME) or a command run as written")
			}
		}
	case r.AptRepo != nil:
		a := r.AptRepo
		if err := checkURL(a.KeyURL, true); err != nil {
			return fm("key_url", "%v", err)
		}
		if err := checkBlake3(a.KeyBlake3); err != nil {
			return fm("key_blake3", "%v", err)
		}
		if strings.TrimSpace(a.Source) == "" {
			return fm("source", "is blank")
		}
		if err := oneLine(a.Source); err != nil {
			return fm("source", "%v", err)
		}
		if !strings.HasPrefix(a.Source, "deb ") && !strings.HasPrefix(a.Source, "deb-src ") {
			return fm("source", "a source line begins with deb or deb-src")
		}
		for _, f := range []struct{ name, v string }{{"key_path", a.KeyPath}, {"list_file", a.ListFile}} {
			if f.v == "" {
				continue
			}
			if err := checkAbs(f.v); err != nil {
				return fm(f.name, "%v", err)
			}
			if strings.ContainsAny(f.v, " \t\"$`\\") {
				return fm(f.name, "holds whitespace or one of \", $, a backtick or \\")
			}
		}
	case r.Installer != nil:
		i := r.Installer
		if i.URL == "" {
			return fm("url", "is blank")
		}
		if err := oneLine(i.URL); err != nil {
			return fm("url", "%v", err)
		}
		if err := CheckURLValue(i.URL, false); err != nil {
			return fm("url", "%v", err)
		}
		if err := checkPath(i.Check); err != nil {
			return fm("check", "%v", err)
		}
		if i.Shell != "" {
			if err := checkName(i.Shell); err != nil {
				return fm("shell", "%v", err)
			}
		}
	case r.User != nil:
		u := r.User
		if !ValidAccount(u.Username) {
			return fm("username", "%q is not an account name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)", u.Username)
		}
		if u.Username == "root" {
			return fm("username", "zap doesn't manage root (its home is /root, not /home/root); manage root's files with file and directory resources")
		}
		if u.Shell != "" {
			if err := checkAbs(u.Shell); err != nil {
				return fm("shell", "%v", err)
			}
		}
		if u.HomeMode != "" && !ValidMode(u.HomeMode) {
			return fm("home_mode", "%q is not an octal mode of 7777 at most, such as \"711\"", u.HomeMode)
		}
		if k := u.SSHKeys; k != nil {
			switch {
			case k.CopyFrom != "" && k.Keys != nil:
				return fm("ssh_keys", "takes copy_from or keys, never both")
			case k.CopyFrom == "" && k.Keys == nil:
				return fm("ssh_keys", "takes copy_from or keys")
			case k.CopyFrom != "" && !ValidAccount(k.CopyFrom):
				return fm("ssh_keys.copy_from", "%q is not an account name", k.CopyFrom)
			case k.Keys != nil && len(k.Keys) == 0:
				return fm("ssh_keys.keys", "holds no key: list one key or more, or use copy_from")
			}
			for i, key := range k.Keys {
				at := fmt.Sprintf("ssh_keys.keys[%d]", i)
				if strings.TrimSpace(key) == "" {
					return fm(at, "is blank")
				}
				if err := oneLine(key); err != nil {
					return fm(at, "a key is one line: %v", err)
				}
			}
		}
		if s := u.Sudo; s != nil && !s.Remove {
			if !slices.Contains(SudoModes, s.Mode) {
				return fm("sudo", "%q is not a sudo grant: 'nopasswd', 'password', {mode, commands} or false", s.Mode)
			}
			if s.Commands != nil && len(s.Commands) == 0 {
				return fm("sudo.commands", "is empty: for a grant of every command, write the mode alone")
			}
			for i, c := range s.Commands {
				at := fmt.Sprintf("sudo.commands[%d]", i)
				if strings.TrimSpace(c) == "" {
					return fm(at, "is blank")
				}
				for _, ch := range c {
					if ch < 0x20 || ch == 0x7f {
						return fm(at, "holds a control character (U+%04X)", ch)
					}
				}
			}
		}
		for i, g := range u.Groups {
			if !ValidAccount(g) {
				return fm(fmt.Sprintf("groups[%d]", i), "%q is not a group name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)", g)
			}
		}
	case r.Service != nil:
		if !serviceNamePattern.MatchString(r.Service.Service) {
			return fm("service", "%q is not one word: a letter or digit, then letters, digits and _ . @ : -", r.Service.Service)
		}
	case r.Database != nil:
		d := r.Database
		if d.Engine != "postgresql" {
			return fm("engine", "%q is not an engine (want postgresql)", d.Engine)
		}
		if err := checkHBA(d.DatabaseName, "database"); err != nil {
			return fm("database_name", "%v", err)
		}
		if err := checkHBA(d.Username, "role"); err != nil {
			return fm("username", "%v", err)
		}
		if a := d.Auth; a != nil {
			if len(a.Hosts) == 0 {
				return fm("auth.hosts", "lists no address: write one or more, such as '127.0.0.1/32'")
			}
			for i, h := range a.Hosts {
				if err := checkHBAHost(h); err != nil {
					return fm(fmt.Sprintf("auth.hosts[%d]", i), "%v", err)
				}
			}
			if why, bad := refusedMethods[a.Method]; bad {
				return fm("auth.method", "%q is refused: %s", a.Method, why)
			}
			if a.Method != "" && !slices.Contains([]string{"scram-sha-256", "md5", "password", "gss", "pam", "reject", "ident"}, a.Method) {
				return fm("auth.method", "%q is not a pg_hba auth method", a.Method)
			}
		}
	case r.Swap != nil:
		s := r.Swap
		if !sizePattern.MatchString(s.Size) || strings.Trim(s.Size, "0KMGT") == "" {
			return fm("size", "%q is not a size above 0, such as '2G'", s.Size)
		}
		if s.Path != "" {
			if err := checkAbs(s.Path); err != nil {
				return fm("path", "%v", err)
			}
			if strings.ContainsAny(s.Path, " \t") {
				return fm("path", "holds whitespace, which an /etc/fstab field can't")
			}
		}
	case r.Firewall != nil:
		f := r.Firewall
		if !slices.Contains(FirewallBackends, f.Backend) {
			return fm("backend", "%q is not a backend (want ufw or nftables)", f.Backend)
		}
		for _, p := range []struct{ name, v string }{{"default_incoming", f.DefaultIncoming}, {"default_outgoing", f.DefaultOutgoing}} {
			if p.v != "" && !slices.Contains(Policies, p.v) {
				return fm(p.name, "%q is not a policy (want allow, deny or reject)", p.v)
			}
		}
		for i, a := range f.Allow {
			at := fmt.Sprintf("allow[%d]", i)
			if a.Port == 0 {
				if err := checkName(a.Profile); err != nil {
					return fm(at, "%v", err)
				}
				if f.Backend == "nftables" {
					return fm(at, "nftables has no application profiles: write a port rule, such as {port: 22}")
				}
				continue
			}
			if a.Port < 1 || a.Port > 65535 {
				return fm(at+".port", "a port is 1 to 65535")
			}
			if a.Proto != "" && !slices.Contains(Protocols, a.Proto) {
				return fm(at+".proto", "%q is not a protocol (want tcp, udp or any)", a.Proto)
			}
		}
	case r.Verify != nil:
		if len(r.Verify.Assertions) == 0 {
			return fm("assertions", "lists no assertion")
		}
		for i, a := range r.Verify.Assertions {
			at := fmt.Sprintf("assertions[%d]", i)
			switch a.Type {
			case AssertPathExists:
				if err := checkAbs(a.Path); err != nil {
					return fm(at+".path", "%v (no ~, no relative path)", err)
				}
				if a.FileType != "" && !slices.Contains(FileTypes, a.FileType) {
					return fm(at+".file_type", "%q is not a file type (want file or directory)", a.FileType)
				}
				if a.Mode != "" && !ValidMode(a.Mode) {
					return fm(at+".mode", "%q is not an octal mode of 7777 at most, such as \"644\"", a.Mode)
				}
				if a.Owner != "" && !ValidAccount(a.Owner) {
					return fm(at+".owner", "%q is not an account name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)", a.Owner)
				}
			case AssertCommand:
				if a.Run == nil {
					return fm(at+".run", "required field missing")
				}
				if err := checkCommand(*a.Run); err != nil {
					return fm(at+".run", "%v", err)
				}
			}
		}
	case r.Pipeline != nil:
		p := r.Pipeline
		if len(p.Env) > 0 {
			return fm("env", "a pipeline takes no env: the executor doesn't run one; set variables inside each step's run")
		}
		if p.MaxConcurrency != nil {
			if *p.MaxConcurrency < 1 {
				return fm("max_concurrency", "a count is 1 or more")
			}
			if *p.MaxConcurrency > 1 {
				return fm("max_concurrency", "steps run one at a time: the executor doesn't run a max_concurrency above 1")
			}
		}
		if len(p.Steps) == 0 {
			return fm("steps", "lists no step")
		}
		ids := map[string]bool{}
		for i, s := range p.Steps {
			at := fmt.Sprintf("steps[%d]", i)
			if !ValidID(s.ID) {
				return fm(at+".id", "%q is not an id: a letter, digit or _, then letters, digits, _, . or -", s.ID)
			}
			if ids[s.ID] {
				return fm(at+".id", "%q is the id of an earlier step", s.ID)
			}
			ids[s.ID] = true
			if err := checkCommand(s.Run); err != nil {
				return fm(at+".run", "%v", err)
			}
			if s.Name != "" {
				if err := oneLine(s.Name); err != nil {
					return fm(at+".name", "%v", err)
				}
			}
			switch {
			case s.Cwd != "":
				return fm(at+".cwd", "a step takes no cwd: the executor doesn't run one; write cd ... && inside run")
			case len(s.Env) > 0:
				return fm(at+".env", "a step takes no env: the executor doesn't run one; write FOO=bar cmd inside run")
			case len(s.DependsOn) > 0:
				return fm(at+".depends_on", "steps run in declared order: the executor doesn't run dependencies between steps; order them by position")
			}
		}
	case r.Build != nil:
		b := r.Build
		src := b.Source
		if err := checkURL(src.URL, true); err != nil {
			return fm("source.url", "%v", err)
		}
		if m := checkExtract(src.Extract); m != nil {
			return fm("source."+m.field, "%s", m.msg)
		}
		if src.Auth != nil && src.Auth.IsZero() {
			return fm("source.auth", "is blank")
		}
		if v := src.Verify; v != nil {
			if v.Scheme != "minisign" {
				return fm("source.verify.scheme", "%q is not a scheme (want minisign)", v.Scheme)
			}
			if !minisignPattern.MatchString(v.PublicKey) {
				return fm("source.verify.public_key", "is not a minisign public key: the 56 base64 characters beginning RW on the key line of a .pub file")
			}
			if v.SignatureURL != nil {
				if err := checkURL(*v.SignatureURL, true); err != nil {
					return fm("source.verify.signature_url", "%v", err)
				}
			}
		}
		if err := checkBlake3(src.Blake3); err != nil {
			return fm("source.blake3", "%v", err)
		}
		if err := checkCommand(b.Run); err != nil {
			return fm("run", "%v", err)
		}
		if err := checkPath(b.Output); err != nil {
			return fm("output", "%v", err)
		}
		if b.Cwd != "" {
			if err := checkName(b.Cwd); err != nil {
				return fm("cwd", "%v", err)
			}
			if strings.HasPrefix(b.Cwd, "~") || strings.HasPrefix(b.Cwd, "$HOME") {
				return fm("cwd", "is taken as written: an absolute path, or one relative to the extracted source (no ~)")
			}
		}
		if m := checkEnv(b.Env, "env"); m != nil {
			return m
		}
	}
	return nil
}

// IsPathCheck reports whether a package's (or an installer's) check is a
// path (it begins /, ~ or $HOME) rather than a command.
func IsPathCheck(t Text) bool { return isPathCheck(t) }

// isPathCheck reports whether a package's check is a path (it begins /, ~
// or $HOME) rather than a command.
func isPathCheck(t Text) bool {
	first := t.Parts()[0]
	if first.Env != "" {
		return false
	}
	s := first.Lit
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "$HOME")
}

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

// CheckHBAHost checks an auth.hosts entry: an IP address with its prefix
// length.
func CheckHBAHost(s string) error {
	if _, _, err := net.ParseCIDR(s); err != nil || strings.ContainsAny(s, " \t") {
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

// checkContent checks a file's content source.
func (f *File) checkContent() *fieldMsg {
	c := f.Content
	fm := func(field, format string, args ...any) *fieldMsg {
		return &fieldMsg{field, fmt.Sprintf(format, args...)}
	}
	switch c.Type {
	case ContentInline:
		if c.Inline == nil {
			return fm("content.content", "required field missing")
		}
	case ContentTemplate:
		if c.Template == nil {
			return fm("content.template", "required field missing")
		}
		used := map[string]bool{}
		for _, m := range placeholderPattern.FindAllStringSubmatch(*c.Template, -1) {
			name := m[1]
			if !used[name] {
				if _, ok := c.Vars[name]; !ok {
					return fm("content.template", "{{%s}} has no variable in vars", name)
				}
			}
			used[name] = true
		}
		for _, name := range sortedMapKeys(c.Vars) {
			if !used[name] {
				return fm("content.vars."+name, "no {{%s}} placeholder in the template uses it", name)
			}
			if v := c.Vars[name]; v.Text != nil && strings.ContainsRune(v.Text.String(), 0) {
				return fm("content.vars."+name, "holds a NUL byte")
			}
		}
		for _, name := range sortedMapKeys(c.Kinds) {
			if _, ok := c.Vars[name]; !ok {
				return fm("content.kinds."+name, "names no variable in vars")
			}
			if !slices.Contains(TemplateKinds, c.Kinds[name]) {
				return fm("content.kinds."+name, "%q is not a kind (want domain, port, word or quoted)", c.Kinds[name])
			}
			if v := c.Vars[name]; v.Text != nil {
				if s, ok := v.Text.Plain(); ok {
					if err := CheckKind(c.Kinds[name], s); err != nil {
						return fm("content.vars."+name, "%v", err)
					}
				}
			} else if err := CheckKind(c.Kinds[name], string(v.JSON)); err != nil {
				return fm("content.vars."+name, "%v", err)
			}
		}
	case ContentSource:
		if c.Path == nil {
			return fm("content.path", "required field missing")
		}
		if err := checkPath(*c.Path); err != nil {
			return fm("content.path", "%v", err)
		}
	case ContentRemote:
		if c.URL == nil {
			return fm("content.url", "required field missing")
		}
		if err := checkURL(*c.URL, true); err != nil {
			return fm("content.url", "%v", err)
		}
		if m := checkExtract(c.Extract); m != nil {
			return fm("content."+m.field, "%s", m.msg)
		}
		if c.Auth != nil && c.Auth.IsZero() {
			return fm("content.auth", "is blank")
		}
		if err := checkBlake3(c.Blake3); err != nil {
			return fm("content.blake3", "%v", err)
		}
		if f.Validate != nil {
			return fm("validate", "is for text config (inline, template, source), not remote content")
		}
	default:
		return fm("content.type", "%q is not a content type", c.Type)
	}
	return nil
}

var (
	domainPattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$`)
	portPattern   = regexp.MustCompile(`^[1-9][0-9]{0,4}$`)
	wordPattern   = regexp.MustCompile(`^[A-Za-z0-9_.+:/@-]+$`)
)

// CheckKind holds a template variable's rendered value to its kind.
func CheckKind(kind, v string) error {
	ok := false
	switch kind {
	case "domain":
		ok = domainPattern.MatchString(v)
	case "port":
		ok = portPattern.MatchString(v) && len(v) <= 5 && (len(v) < 5 || v <= "65535")
	case "word":
		ok = wordPattern.MatchString(v)
	case "quoted":
		ok = !strings.ContainsAny(v, "'\"\\$`\r\n\x00")
	}
	if !ok {
		return fmt.Errorf("%q doesn't render as a %s", v, kind)
	}
	return nil
}

func sortedMapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// validate checks the deploy block.
func (d *Deploy) validate() error {
	e := func(field, format string, args ...any) error {
		return &Error{Field: "deploy." + field, Msg: fmt.Sprintf(format, args...)}
	}
	if err := checkAbs(d.Path); err != nil {
		return e("path", "%v", err)
	}
	if d.Build != "" && strings.TrimSpace(d.Build) == "" {
		return e("build", "is blank")
	}
	if len(d.Artifacts) == 0 {
		return e("artifacts", "lists nothing to ship")
	}
	for i, a := range d.Artifacts {
		at := fmt.Sprintf("artifacts[%d]", i)
		if strings.TrimSpace(a) == "" {
			return e(at, "is blank")
		}
		if err := oneLine(a); err != nil {
			return e(at, "%v", err)
		}
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "@") {
			return e(at, "%q begins with %s, which tar would read as an option", a, a[:1])
		}
	}
	for i, s := range d.Shared {
		if !sharedPattern.MatchString(s) || s == "." || s == ".." {
			return e(fmt.Sprintf("shared[%d]", i), "%q is not a plain relative name (no /, no .., not beginning with -)", s)
		}
	}
	for i, p := range d.Prepare {
		if strings.TrimSpace(p) == "" {
			return e(fmt.Sprintf("prepare[%d]", i), "is blank")
		}
	}
	if d.Service != "" && !serviceNamePattern.MatchString(d.Service) {
		return e("service", "%q is not one word: a letter or digit, then letters, digits and _ . @ : -", d.Service)
	}
	if d.Releases != nil && *d.Releases < 2 {
		return e("releases", "keeps %d; keep 2 or more (the one deployed and the one it replaced)", *d.Releases)
	}
	if h := d.Health; h != nil {
		if s, ok := h.Domain.Plain(); ok && strings.TrimSpace(s) == "" {
			return e("health.domain", "is blank")
		}
		if err := oneLine(h.Domain.String()); err != nil {
			return e("health.domain", "%v", err)
		}
		if s, ok := h.Domain.Plain(); ok && !domainPattern.MatchString(s) {
			return e("health.domain", "%q is not a host name", s)
		}
		if h.Path != "" && !strings.HasPrefix(h.Path, "/") {
			return e("health.path", "%q must begin with /", h.Path)
		}
		if err := oneLine(h.Path); err != nil {
			return e("health.path", "%v", err)
		}
		if h.Attempts != nil && *h.Attempts < 1 {
			return e("health.attempts", "a count is 1 or more")
		}
		if h.IntervalMS != nil && *h.IntervalMS < 1 {
			return e("health.interval_ms", "an interval is 1 or more")
		}
	}
	return nil
}
