package declaration

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/zap-go/zap/internal/suggest"
)

// Error is a declaration that fails a form check or the structural gate. It
// names the resource (when there is one) and the field.
type Error struct {
	ID    string // the resource's id, or "" for the target or the document
	Field string
	Msg   string
	// index is 1 + the index in Resources of the resource at fault, when
	// the check knows it; 0 otherwise.
	index int
}

// Resource returns the index in Resources of the resource at fault, when
// the check that found the problem knows which one (two resources can
// share an id: "id declared twice" names the second).
func (e *Error) Resource() (int, bool) { return e.index - 1, e.index > 0 }

func (e *Error) Error() string {
	switch {
	case e.ID != "" && e.Field != "":
		return fmt.Sprintf("resource %q: %s: %s", e.ID, e.Field, e.Msg)
	case e.ID != "":
		return fmt.Sprintf("resource %q: %s", e.ID, e.Msg)
	case e.Field != "":
		return e.Field + ": " + e.Msg
	}
	return e.Msg
}

var accountPattern = newPattern(`^[a-z_][a-z0-9_-]{0,30}\$?$`)

// ValidID reports whether id is a resource id: a letter, digit or _, then
// letters, digits, _, . or -, 128 characters at most (the ASCII
// characters of ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$, checked byte by byte:
// every stage checks every id, and the regular expression took a third of
// a millisecond to compile in each).
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_':
		case (c == '.' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// ValidMode reports whether mode is an octal mode of 7777 at most: one to
// four octal digits (^[0-7]{1,4}$).
func ValidMode(mode string) bool {
	if len(mode) == 0 || len(mode) > 4 {
		return false
	}
	for i := 0; i < len(mode); i++ {
		if mode[i] < '0' || mode[i] > '7' {
			return false
		}
	}
	return true
}

// ValidAccount reports whether name is a portable Unix account name.
func ValidAccount(name string) bool { return accountPattern.MatchString(name) }

// Validate runs the form checks and the structural gate. The first problem
// found, in document order, is returned.
func (d *Declaration) Validate() error {
	if list, _ := d.Problems(1); len(list) > 0 {
		return list[0]
	}
	return nil
}

// Problems runs the checks Validate runs and returns the problems they
// find in document order, the first max of them (all for max 0), and how
// many they found in all. Each of these contributes its first problem: the
// target; each resource's id and form checks; each resource's depends_on
// and trigger edges. The checks across resources (a dependency cycle, one
// thing managed twice, Zap's state directory, services, the deploy block,
// mask and unmask) run only when those found none, since they take what
// those check for granted.
func (d *Declaration) Problems(max int) ([]*Error, int) {
	p := &problems{max: max}
	if d.Format != Format {
		p.add(&Error{Field: "format", Msg: fmt.Sprintf("want %q", Format)}, -1)
		return p.list, p.total
	}
	p.add(d.Target.validate(), -1)
	byID := map[string]*Resource{}
	// badID[i]: resource i's id is the problem; its edges aren't checked
	// as well (a second "app" that depends on the first would read as
	// depending on itself).
	badID := map[int]bool{}
	for i := range d.Resources {
		r := &d.Resources[i]
		switch {
		case !ValidID(r.ID):
			badID[i] = true
			p.add(&Error{Field: fmt.Sprintf("resources[%d].id", i), Msg: fmt.Sprintf("%q is not an id: a letter, digit or _, then letters, digits, _, . or -", r.ID)}, i)
		case byID[r.ID] != nil:
			badID[i] = true
			p.add(&Error{ID: r.ID, Msg: "id declared twice"}, i)
		default:
			byID[r.ID] = r
			p.add(r.validate(), i)
		}
	}
	for i := range d.Resources {
		if !badID[i] {
			p.add(d.Resources[i].checkEdges(byID, d.ids), i)
		}
	}
	if p.total > 0 {
		return p.list, p.total
	}
	if cycle := d.Cycle(); cycle != nil {
		p.add(&Error{Field: "depends_on", Msg: "dependency cycle: " + strings.Join(cycle, " -> ")}, -1)
	}
	p.add(d.checkOwnership(), -1)
	p.add(d.checkStateDir(), -1)
	p.add(d.checkServices(), -1)
	if d.Deploy != nil {
		p.add(d.Deploy.validate(), -1)
	}
	p.add(d.checkMask(), -1)
	return p.list, p.total
}

// problems collects what Problems finds.
type problems struct {
	list       []*Error
	total, max int
}

// add adds err, when there is one, as the problem of the resource at
// index i (-1: none known).
func (p *problems) add(err error, i int) {
	if err == nil {
		return
	}
	p.total++
	if p.max > 0 && len(p.list) >= p.max {
		return
	}
	e, ok := err.(*Error)
	if !ok {
		e = &Error{Msg: err.Error()}
	}
	if e.index == 0 && i >= 0 {
		e.index = i + 1
	}
	p.list = append(p.list, e)
}

// ids returns the resources' ids in the order declared.
func (d *Declaration) ids() []string {
	out := make([]string, len(d.Resources))
	for i := range d.Resources {
		out[i] = d.Resources[i].ID
	}
	return out
}

// checkEdges checks r's depends_on and trigger edges against the ids
// declared; ids lists them in order, for the one a dangling id misspells.
func (r *Resource) checkEdges(byID map[string]*Resource, ids func() []string) error {
	listed := map[string]bool{}
	for _, dep := range r.DependsOn {
		if listed[dep] {
			return &Error{ID: r.ID, Field: "depends_on", Msg: fmt.Sprintf("%q is listed twice", dep)}
		}
		listed[dep] = true
		if byID[dep] == nil {
			return &Error{ID: r.ID, Field: "depends_on", Msg: fmt.Sprintf("no resource has the id %q", dep) + suggest.Hint(dep, ids())}
		}
		if dep == r.ID {
			return &Error{ID: r.ID, Field: "depends_on", Msg: "a resource can't depend on itself"}
		}
	}
	return r.checkTriggers(byID)
}

// hostPort splits an ssh-style "[user@]host:port" (or "[user@][v6]:port")
// into its host and port; ok is false for anything else, a bare IPv6
// address included.
func hostPort(s string) (host, port string, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 || i == len(s)-1 {
		return "", "", false
	}
	host, port = s[:i], s[i+1:]
	for _, c := range port {
		if c < '0' || c > '9' {
			return "", "", false
		}
	}
	user, bare := "", host
	if j := strings.LastIndexByte(host, '@'); j >= 0 {
		user, bare = host[:j+1], host[j+1:]
	}
	switch {
	case strings.HasPrefix(bare, "[") && strings.HasSuffix(bare, "]"):
		return user + bare[1:len(bare)-1], port, true
	case bare != "" && !strings.Contains(bare, ":"):
		return host, port, true
	}
	return "", "", false
}

func (t *Target) validate() error {
	remote := t.Host != nil || t.User != nil || t.Port != 0 || t.Identity != "" || t.Home != "" || t.BootstrapUser != nil
	switch {
	case t.Local && remote:
		return &Error{Field: "target", Msg: "a local target takes no host, user, port, identity, home or bootstrap_user"}
	case !t.Local && t.Host == nil:
		return &Error{Field: "target.host", Msg: "a remote target needs a host (or declare local: true)"}
	}
	for _, f := range []struct {
		name string
		v    *Text
	}{{"target.host", t.Host}, {"target.user", t.User}, {"target.bootstrap_user", t.BootstrapUser}} {
		if f.v == nil {
			continue
		}
		s, plain := f.v.Plain()
		if plain && strings.TrimSpace(s) == "" {
			return &Error{Field: f.name, Msg: "is blank"}
		}
		if err := oneLine(f.v.String()); err != nil {
			return &Error{Field: f.name, Msg: err.Error()}
		}
		if plain && strings.HasPrefix(s, "-") {
			return &Error{Field: f.name, Msg: "must be a name that doesn't begin with -"}
		}
		if host, port, ok := hostPort(s); plain && f.name == "target.host" && ok {
			return &Error{Field: f.name, Msg: fmt.Sprintf("%q ends in a port, which ssh doesn't take from a host name: declare host: %q, port: %s", s, host, port)}
		}
	}
	if t.Port < 0 || t.Port > 65535 {
		return &Error{Field: "target.port", Msg: "a port is 1 to 65535"}
	}
	if t.Home != "" && !strings.HasPrefix(t.Home, "/") {
		return &Error{Field: "target.home", Msg: "must be an absolute path"}
	}
	for _, f := range []struct{ name, v string }{{"target.home", t.Home}, {"target.identity", t.Identity}} {
		if err := oneLine(f.v); err != nil {
			return &Error{Field: f.name, Msg: err.Error()}
		}
	}
	if t.Identity != "" {
		if err := CheckPathValue(t.Identity); err != nil {
			return &Error{Field: "target.identity", Msg: err.Error()}
		}
	}
	for _, f := range []struct {
		name string
		v    *Text
	}{{"target.user", t.User}, {"target.bootstrap_user", t.BootstrapUser}} {
		if f.v == nil {
			continue
		}
		if s, ok := f.v.Plain(); ok && !ValidAccount(s) {
			return &Error{Field: f.name, Msg: fmt.Sprintf("%q is not an account name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)", s)}
		}
	}
	if t.PackageManager != "" && !slices.Contains(PackageManagers, t.PackageManager) {
		return &Error{Field: "target.package_manager", Msg: fmt.Sprintf("%q is not a package manager (apt, apk, pacman or brew)", t.PackageManager)}
	}
	if t.ServiceManager != "" && !slices.Contains(ServiceManagers, t.ServiceManager) {
		return &Error{Field: "target.service_manager", Msg: fmt.Sprintf("%q is not a service manager (systemd, openrc or launchd)", t.ServiceManager)}
	}
	return nil
}

func (r *Resource) validate() error {
	e := func(field, format string, args ...any) error {
		return &Error{ID: r.ID, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	s, ok := r.typed()
	if !ok || isNilBody(s) {
		return e("type", "the resource's body doesn't match its type %q", r.Type)
	}
	if r.Name != "" {
		if err := oneLine(r.Name); err != nil {
			return e("name", "%v", err)
		}
	}
	if m := s.CheckForm(); m != nil {
		return e(m.field, "%s", m.msg)
	}
	return nil
}

// fieldMsg is a form check's finding: the field at fault and what is wrong.
type fieldMsg struct{ field, msg string }

// fieldf is a fieldMsg with its message formatted.
func fieldf(field, format string, args ...any) *fieldMsg {
	return &fieldMsg{field, fmt.Sprintf(format, args...)}
}

func checkPerms(mode, owner, group string) *fieldMsg {
	if mode != "" && !ValidMode(mode) {
		return &fieldMsg{"mode", fmt.Sprintf("%q is not an octal mode of 7777 at most, such as \"644\"", mode)}
	}
	if owner != "" && !ValidAccount(owner) {
		return &fieldMsg{"owner", fmt.Sprintf("%q is not an account name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)", owner)}
	}
	if group != "" && !ValidAccount(group) {
		return &fieldMsg{"group", fmt.Sprintf("%q is not a group name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)", group)}
	}
	return nil
}

// checkPath requires a path that is absolute or under ~ (or $HOME), one line,
// with no NUL, not beginning with -. A path that begins with a reference is
// checked again once the reference resolves.
func checkPath(p Text) error {
	if p.IsZero() {
		return fmt.Errorf("is blank")
	}
	if err := oneLine(p.String()); err != nil {
		return err
	}
	first := p.Parts()[0]
	if first.Env != "" {
		return nil
	}
	return CheckPathValue(first.Lit)
}

// CheckPathValue checks a path's text as written, or its start when a
// reference follows, or the whole path once resolved.
func CheckPathValue(s string) error {
	switch {
	case strings.HasPrefix(s, "-"):
		return fmt.Errorf("begins with -")
	case strings.HasPrefix(s, "/"), s == "~", strings.HasPrefix(s, "~/"), s == "$HOME", strings.HasPrefix(s, "$HOME/"):
	default:
		return fmt.Errorf("%q must be absolute or start with ~/", s)
	}
	if strings.ContainsRune(s, 0) {
		return fmt.Errorf("holds a NUL byte")
	}
	return nil
}

func checkCommand(t Text) error {
	s := t.String()
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("is blank")
	}
	if strings.ContainsRune(s, 0) {
		return fmt.Errorf("holds a NUL byte")
	}
	return nil
}

// oneLine refuses a line break, NUL or other control character (a tab is
// allowed) in a one-line field.
func oneLine(s string) error {
	for _, r := range s {
		if r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return fmt.Errorf("holds a line break or control character (U+%04X)", r)
		}
	}
	return nil
}

// ManagedPath returns the path a file, directory or link resource manages,
// normalized the way the one-resource-per-thing rule compares paths: //, /./
// and a trailing / dropped, $HOME read as ~. A reference reads {env:NAME}.
// It returns "" for other kinds.
func (r *Resource) ManagedPath() string {
	p, ok := r.managedText()
	if !ok {
		return ""
	}
	return normalizePath(p.String())
}

// A pathKind is a kind whose resources manage one path: a file, directory
// or link.
type pathKind interface {
	managedPath() Text
}

func (r *Resource) managedText() (Text, bool) {
	if p, ok := r.Body.(pathKind); ok {
		return p.managedPath(), true
	}
	return Text{}, false
}

func normalizePath(s string) string {
	// Most paths are written normalized: they come back as they are,
	// with nothing split or joined.
	if isNormalPath(s) {
		return s
	}
	if rest, ok := strings.CutPrefix(s, "$HOME"); ok && (rest == "" || rest[0] == '/') {
		s = "~" + rest
	}
	// Drop empty and "." components; keep ".." as written.
	var out []string
	for i, c := range strings.Split(s, "/") {
		if (c == "" && i > 0) || c == "." {
			continue
		}
		out = append(out, c)
	}
	s = strings.Join(out, "/")
	if s == "" {
		s = "/"
	}
	return s
}

// isNormalPath reports whether normalizePath would give s back unchanged:
// it has a component, none empty but a leading one, none ".", and doesn't
// start with $HOME. It may say no of a path that is normal ($HOMES).
func isNormalPath(s string) bool {
	switch {
	case s == "" || s == "." || strings.HasPrefix(s, "$HOME") || strings.HasPrefix(s, "./"):
		return false
	case len(s) > 1 && s[len(s)-1] == '/', strings.HasSuffix(s, "/."):
		return false
	}
	return !strings.Contains(s, "//") && !strings.Contains(s, "/./")
}

// managed is one thing a resource manages exclusively: a path, an account,
// a service or a database; or a thing a config declares one of (one is
// set), such as the firewall.
type managed struct {
	field, what, key, shown string
	one                     bool
}

// An ownerKind is a kind whose resources manage something exclusively
// (resources.md, One resource per thing), beside the path a pathKind
// manages. A package, script, installer, pipeline and verify manage nothing
// exclusive.
type ownerKind interface {
	// manages lists what the resource, having the id id, manages.
	manages(id string) []managed
}

// manages lists what r manages exclusively.
func (r *Resource) manages() []managed {
	s := r.Body
	if p, ok := s.(pathKind); ok {
		return []managed{ownPath("path", p.managedPath())}
	}
	if o, ok := s.(ownerKind); ok {
		return o.manages(r.ID)
	}
	return nil
}

// ownPath is the path t, in the field field, as a thing managed.
func ownPath(field string, t Text) managed {
	key := textKey(t)
	if !t.HasRefs() {
		// With no reference the key is the path as shown.
		return managed{field, "path", key, key, false}
	}
	return managed{field, "path", key, normalizePath(t.String()), false}
}

// textKey writes t with each reference as RefOpen NAME RefClose, characters
// no literal holds, normalized as a path, so that a literal "{env:A}" and a
// reference to A are not taken for the same path.
func textKey(t Text) string {
	switch {
	case len(t.parts) == 0:
		return normalizePath("")
	case len(t.parts) == 1 && t.parts[0].Env == "":
		return normalizePath(t.parts[0].Lit)
	}
	var b strings.Builder
	for _, part := range t.parts {
		if part.Env != "" {
			b.WriteRune(RefOpen)
			b.WriteString(part.Env)
			b.WriteRune(RefClose)
		} else {
			b.WriteString(part.Lit)
		}
	}
	return normalizePath(b.String())
}

func (d *Declaration) checkOwnership() error {
	type thing struct{ what, key string }
	seen := make(map[thing]string, len(d.Resources))
	for i := range d.Resources {
		r := &d.Resources[i]
		for _, m := range r.manages() {
			k := thing{m.what, m.key}
			other, ok := seen[k]
			switch {
			case ok && m.one:
				return &Error{ID: r.ID, Field: m.field, Msg: fmt.Sprintf("a second %s (%q is the first): a config declares one", m.what, other)}
			case ok:
				return &Error{ID: r.ID, Field: m.field, Msg: fmt.Sprintf("%q and %q both manage %s; declare it once", other, r.ID, m.shown)}
			}
			seen[k] = r.ID
		}
	}
	return nil
}

// A triggerKind is a kind with trigger edges beside depends_on: a file
// that triggers services, a service restarted or reloaded on changes.
type triggerKind interface {
	// edges returns the ids the resource comes after and those that come
	// after it.
	edges() (after, before []string)
	// checkTriggers checks the edges of the resource, which has the id
	// self.
	checkTriggers(self string, byID map[string]*Resource) *fieldMsg
}

// checkTriggers checks r's trigger edges: a file's triggers name services,
// a service's restart_on and reload_on name resources, and no trigger acts
// on a service declared running: false.
func (r *Resource) checkTriggers(byID map[string]*Resource) error {
	if t, ok := r.Body.(triggerKind); ok {
		if m := t.checkTriggers(r.ID, byID); m != nil {
			return &Error{ID: r.ID, Field: m.field, Msg: m.msg}
		}
	}
	return nil
}

// A managerUser is a kind whose resources may need the target's
// service_manager.
type managerUser interface {
	// needsManager returns what in the resource needs a service manager
	// ("a service", "a trigger") and its field, or "" for what.
	needsManager() (field, what string)
}

// A serviceEnabler is a kind whose resources may keep a service enabled.
type serviceEnabler interface {
	// enabledService returns the service the resource keeps enabled, or "".
	enabledService() string
}

// A serviceNeeder is a kind whose resources may need a service enabled in
// the same config.
type serviceNeeder interface {
	// neededService returns the service the resource needs enabled and
	// what to say when it isn't, or nil.
	neededService() (string, *fieldMsg)
}

// checkServices refuses service intent on a target with no service_manager
// and an nftables firewall with no enabled nftables service.
func (d *Declaration) checkServices() error {
	noManager := d.Target.ServiceManager == ""
	enabled := map[string]bool{}
	for i := range d.Resources {
		r := &d.Resources[i]
		s := r.Body
		if u, ok := s.(managerUser); ok && noManager {
			if field, what := u.needsManager(); what != "" {
				return &Error{ID: r.ID, Field: field, Msg: what + " needs the target's service_manager (systemd or openrc): declare it in zap.target"}
			}
		}
		if e, ok := s.(serviceEnabler); ok {
			enabled[e.enabledService()] = true
		}
	}
	if noManager && d.Deploy != nil && d.Deploy.Service != "" {
		return &Error{Field: "deploy.service", Msg: "restarting a service needs the target's service_manager (systemd or openrc): declare it in zap.target"}
	}
	for i := range d.Resources {
		r := &d.Resources[i]
		if n, ok := r.Body.(serviceNeeder); ok {
			if name, m := n.neededService(); m != nil && !enabled[name] {
				return &Error{ID: r.ID, Field: m.field, Msg: m.msg}
			}
		}
	}
	return nil
}

func (d *Declaration) checkMask() error {
	masked := map[string]bool{}
	for _, n := range d.Mask {
		if !ValidEnvName(n) {
			return &Error{Field: "mask", Msg: fmt.Sprintf("%q is not a variable name", n)}
		}
		masked[n] = true
	}
	for _, n := range d.Unmask {
		if !ValidEnvName(n) {
			return &Error{Field: "unmask", Msg: fmt.Sprintf("%q is not a variable name", n)}
		}
		if masked[n] {
			return &Error{Field: "unmask", Msg: fmt.Sprintf("%s is given to both mask and unmask", n)}
		}
		if id := d.authUser(n); id != "" {
			return &Error{Field: "unmask", Msg: fmt.Sprintf("%s is the auth credential of %q, and a credential is always a secret", n, id)}
		}
	}
	return nil
}

// A credentialKind is a kind whose resources may fetch with a credential.
type credentialKind interface {
	// credential returns the fetch credential, or nil.
	credential() *Text
	// credentialField is the credential's key in Texts.
	credentialField() string
	// dropCredential clears the credential.
	dropCredential()
}

// authUser returns the id of a resource whose fetch credential (a remote
// file's or a build source's auth) references name, or "".
func (d *Declaration) authUser(name string) string {
	for i := range d.Resources {
		r := &d.Resources[i]
		c, ok := r.Body.(credentialKind)
		if !ok || c.credential() == nil {
			continue
		}
		if slices.Contains(c.credential().Refs(), name) {
			return r.ID
		}
	}
	return ""
}

// Cycle returns a dependency cycle as a list of ids (first id repeated at the
// end), or nil. Edges are depends_on and the trigger edges: a service after
// each resource it restart_on / reload_on, and after each file that triggers
// it.
func (d *Declaration) Cycle() []string {
	// Each id that has edges from it, or is declared, is a node, numbered
	// in the order met; deps are its edges by id, sorted.
	index := make(map[string]int, len(d.Resources))
	var names []string
	var deps [][]string
	node := func(id string) int {
		k, ok := index[id]
		if !ok {
			k = len(names)
			index[id] = k
			names = append(names, id)
			deps = append(deps, nil)
		}
		return k
	}
	ids := make([]string, 0, len(d.Resources))
	for i := range d.Resources {
		r := &d.Resources[i]
		ids = append(ids, r.ID)
		k := node(r.ID)
		deps[k] = append(deps[k], r.DependsOn...)
		if t, ok := r.Body.(triggerKind); ok {
			after, before := t.edges()
			deps[k] = append(deps[k], after...)
			for _, id := range before {
				b := node(id)
				deps[b] = append(deps[b], r.ID)
			}
		}
	}
	for k := range deps {
		if len(deps[k]) > 1 {
			sort.Strings(deps[k])
			deps[k] = slices.Compact(deps[k])
		}
	}
	sort.Strings(ids)
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(names))
	var stack []int
	var found []string
	var visit func(k int) bool
	visit = func(k int) bool {
		color[k] = grey
		stack = append(stack, k)
		for _, dep := range deps[k] {
			// An id that is no node is never visited.
			j, ok := index[dep]
			if !ok {
				continue
			}
			switch color[j] {
			case grey:
				for i, s := range stack {
					if s == j {
						for _, c := range stack[i:] {
							found = append(found, names[c])
						}
						found = append(found, dep)
						return true
					}
				}
			case white:
				if visit(j) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[k] = black
		return false
	}
	for _, id := range ids {
		if k := index[id]; color[k] == white && visit(k) {
			return found
		}
	}
	return nil
}

// Refs returns the variables r references, sorted.
func (r *Resource) Refs() []string {
	seen := map[string]bool{}
	for _, t := range r.Texts() {
		for _, n := range t.Refs() {
			seen[n] = true
		}
	}
	return sortedKeys(seen)
}

// Refs returns the variables the target references, sorted.
func (t *Target) Refs() []string {
	seen := map[string]bool{}
	for _, v := range []*Text{t.Host, t.User, t.BootstrapUser} {
		if v != nil {
			for _, n := range v.Refs() {
				seen[n] = true
			}
		}
	}
	return sortedKeys(seen)
}

// Refs returns the variables the deploy block references (its health
// domain), sorted.
func (d *Deploy) Refs() []string {
	if d == nil || d.Health == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, n := range d.Health.Domain.Refs() {
		seen[n] = true
	}
	return sortedKeys(seen)
}

// Refs returns every variable the target and the resources reference,
// sorted. The deploy block's are Deploy.Refs: a comparison doesn't resolve
// them (env.md).
func (d *Declaration) Refs() []string {
	seen := map[string]bool{}
	for _, n := range d.Target.Refs() {
		seen[n] = true
	}
	// Resource.Refs for each resource, into one set, with one map of
	// texts reused.
	texts := map[string]Text{}
	for i := range d.Resources {
		r := &d.Resources[i]
		if r.Body == nil || isNilBody(r.Body) {
			continue
		}
		clear(texts)
		r.Body.Texts(texts)
		for _, t := range texts {
			for _, p := range t.parts {
				if p.Env != "" {
					seen[p.Env] = true
				}
			}
		}
	}
	return sortedKeys(seen)
}

// ComparedRefs returns the variables a comparison resolves, sorted: Refs
// less those only a fetch credential references (a remote file's or a
// build source's auth). A credential is resolved only when Zap fetches, so
// a plan doesn't need it, and an unset one leaves it sound (env.md).
func (d *Declaration) ComparedRefs() []string {
	seen := map[string]bool{}
	for _, n := range d.Target.Refs() {
		seen[n] = true
	}
	for i := range d.Resources {
		r := &d.Resources[i]
		skip := ""
		if c, ok := r.Body.(credentialKind); ok {
			skip = c.credentialField()
		}
		for field, t := range r.Texts() {
			if field == skip {
				continue
			}
			for _, n := range t.Refs() {
				seen[n] = true
			}
		}
	}
	return sortedKeys(seen)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
