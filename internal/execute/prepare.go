package execute

import (
	"context"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/zap-go/zap/internal/template"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Lookup returns the value a referenced variable resolved to, and whether
// the plan's references block names it.
type Lookup func(name string) (string, bool)

// Context is what a run resolves a plan's steps against.
type Context struct {
	// Home is what ~ and $HOME in a path resolve to.
	Home string
	// User is the account Zap runs as: the one login and (locally, for
	// now) elevated steps run as.
	User string
	// Root reports whether User is root, who can run root steps.
	Root bool
	// Remote is a target over SSH, where an elevated operation runs as root
	// (under sudo) and Home is the declared one ("" when none is declared:
	// a path under ~ is then refused, since Zap never guesses a remote
	// home).
	Remote bool
	// Scripts looks up the constant script of an operation other than
	// put, dir and link (internal/ops's Script).
	Scripts Scripts
}

// Prepared is a plan with every step's arguments resolved, ready to run.
type Prepared struct {
	Hash    string
	Changes []PreparedChange
}

// PreparedChange is one change of a prepared plan.
type PreparedChange struct {
	Change *plan.Change
	Steps  []PreparedStep
}

// PreparedStep is one step, resolved. Exactly one of Put, Dir, Link, Op, Extract,
// Command, Note and Local is set.
type PreparedStep struct {
	// Summary describes the step as written, in the words a report uses.
	Summary string
	Put     *Put
	Dir     *Dir
	Link    *Link
	Op      *ZapOp
	Extract *Extract
	Command *Command
	Note    string
	// Local is work Zap does itself on the operator's machine, for a step
	// run alone (Runner.Step): a deploy's tarball or health check. Prepare
	// never sets it.
	Local func(ctx context.Context) error
	// expect is a verify's command assertion with an expected text.
	expect bool
}

// Scripts returns the text of a named operation's script (internal/ops's
// Script); Prepare takes it so it needs no copy of the scripts itself.
type Scripts func(name plan.OpName) (plan.Script, bool)

// PrepareError is a plan a run refuses before anything runs: a reference
// the plan doesn't record, a value a command can't take, a path that
// doesn't resolve to one Zap may act on.
type PrepareError struct {
	ID  string // the resource
	Msg string
}

func (e *PrepareError) Error() string { return fmt.Sprintf("resource %q: %s", e.ID, e.Msg) }

// Prepare resolves every step of p: references through lookup, ~ and $HOME
// against c.Home. It refuses, before anything runs, a reference the plan's
// references block doesn't name; a value holding a single quote, a NUL or a
// reference delimiter (U+FDD0, U+FDD1) substituted into a command, or a NUL
// or delimiter in an env value; a path that resolves to neither an absolute
// path nor one under ~, that ends in . or .., or that is at or under Zap's
// own /var/lib/zap; a path or link target under ~ when c.Home is empty (a
// remote target that declares no home); a link that would point at
// /var/lib/zap or a directory above it; and a root step when Zap doesn't
// run as root.
func Prepare(p *plan.Plan, lookup Lookup, c Context) (*Prepared, error) {
	out := &Prepared{Hash: p.Hash}
	for i := range p.Changes {
		ch := &p.Changes[i]
		pc := PreparedChange{Change: ch}
		as := ch.Resource.Assertions()
		fetched, _ := ch.Resource.Fetched()
		for j, s := range ch.Steps {
			ps, err := prepareStep(ch.ID, s, lookup, c)
			if err != nil {
				return nil, err
			}
			if fetched.Kind == declaration.LockAptKey && ps.Put != nil && ps.Put.Remote != nil {
				// An apt_repo's signing key: 1 MiB at most, as its pin
				// was minted and as detection reads it.
				ps.Put.Remote.Limit, ps.Put.Remote.What = vocab.AptKeyLimit, "an apt signing key"
			}
			if len(as) == len(ch.Steps) && s.Command != nil && as[j].Type == declaration.AssertCommand {
				// A verify's command reads as the assertion it checks,
				// not as the wrapper that looks for its expected text.
				ps.Summary = as[j].Describe()
				ps.expect = as[j].Expect != nil
			}
			pc.Steps = append(pc.Steps, ps)
		}
		out.Changes = append(out.Changes, pc)
	}
	return out, nil
}

func prepareStep(id string, s plan.Step, lookup Lookup, c Context) (PreparedStep, error) {
	fail := func(format string, args ...any) (PreparedStep, error) {
		return PreparedStep{}, &PrepareError{ID: id, Msg: fmt.Sprintf(format, args...)}
	}
	ps := PreparedStep{Summary: Summary(s, c.User, c.Remote)}
	priv := plan.Login
	switch {
	case s.Op != nil:
		priv = s.Op.Privilege
	case s.Command != nil:
		priv = s.Command.Privilege
	}
	// One of Zap's other operations runs as root through sudo -n (its Host
	// asks sudo); a root put, dir, link or command doesn't yet.
	other := s.Op != nil && s.Op.Name != plan.OpPut && s.Op.Name != plan.OpDir && s.Op.Name != plan.OpLink && s.Op.Name != plan.OpExtract
	if priv == plan.Root && !c.Root && !other {
		return fail("a root step (%s) needs sudo, which zap-exec doesn't run yet", ps.Summary)
	}
	r := resolver{id: id, lookup: lookup}
	switch s.Type {
	case plan.StepNote:
		ps.Note = s.Note
	case plan.StepCommand:
		cmd, err := prepareCommand(s.Command, r)
		if err != nil {
			return PreparedStep{}, err
		}
		ps.Command = cmd
	case plan.StepOp:
		switch op := s.Op; op.Name {
		case plan.OpPut, plan.OpDir, plan.OpLink:
			return preparePath(ps, id, op, r, c)
		case plan.OpExtract:
			return prepareExtract(ps, op, r, c)
		default:
			return prepareOp(ps, id, op, r, c)
		}
	}
	return ps, nil
}

// prepareCommand resolves an operator's command: its run text, its env and
// its cwd, which must be absolute.
func prepareCommand(cmd *plan.Command, r resolver) (*Command, error) {
	run, err := r.command("run", cmd.Run)
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for name, t := range cmd.Env {
		v, err := r.env("env."+name, t)
		if err != nil {
			return nil, err
		}
		env[name] = v
	}
	if cmd.Cwd != "" && !strings.HasPrefix(cmd.Cwd, "/") {
		return nil, &PrepareError{ID: r.id, Msg: fmt.Sprintf("cwd: %q is not an absolute path", cmd.Cwd)}
	}
	return &Command{Cwd: cmd.Cwd, Script: Script(cmd.Cwd, env, run), Timeout: seconds(cmd.Timeout)}, nil
}

// preparePath prepares a put, dir or link: its path resolved, and what the
// operation writes there.
func preparePath(ps PreparedStep, id string, op *plan.Op, r resolver, c Context) (PreparedStep, error) {
	fail := func(format string, args ...any) (PreparedStep, error) {
		return PreparedStep{}, &PrepareError{ID: id, Msg: fmt.Sprintf(format, args...)}
	}
	path, err := r.path("path", op.Path, c.Home)
	if err != nil {
		return PreparedStep{}, err
	}
	switch op.Name {
	case plan.OpPut:
		if path == "/" {
			return fail("path: / can't be a file")
		}
		p := &Put{Path: path, Mode: op.Mode, Owner: op.Owner, Group: op.Group}
		if err := r.content(p, op, c.Home); err != nil {
			return PreparedStep{}, err
		}
		if op.Validate != nil {
			v, err := r.command("validate", *op.Validate)
			if err != nil {
				return PreparedStep{}, err
			}
			p.Validate = &Command{Script: Script("", nil, v), Timeout: seconds(op.Timeout)}
		}
		ps.Put = p
	case plan.OpDir:
		ps.Dir = &Dir{Path: path, Mode: op.Mode, Owner: op.Owner, Group: op.Group}
	case plan.OpLink:
		if path == "/" {
			return fail("path: / can't be a link")
		}
		if op.Target == nil {
			return fail("the link step has no target")
		}
		target, err := r.text("target", *op.Target)
		if err != nil {
			return PreparedStep{}, err
		}
		if target == "" || strings.ContainsRune(target, 0) {
			return fail("target: resolves to nothing, or holds a NUL")
		}
		if c.Home == "" && expandHome(target, "/") != target {
			return fail("target: %s is under ~, and the target declares no home (Zap never guesses a remote home)", target)
		}
		target = expandHome(target, c.Home)
		if strings.HasPrefix(target, "/") && aboveOrAtState(clean(target)) {
			return fail("target: resolves to %s, at or above Zap's own %s", clean(target), StateDir)
		}
		ps.Link = &Link{Path: path, Target: target}
	default:
		return fail("unknown operation %q", op.Name)
	}
	return ps, nil
}

// prepareOp prepares one of Zap's other operations: its path, when it has
// one, resolved like any other (and handed to the script first), then its
// literal arguments, then its text arguments resolved (a NUL or a
// reference delimiter in a value refused, as in an env value: they reach
// the script on stdin, never through a shell's quoting). The script itself is looked up when the plan's hash
// is verified (zap-exec refuses an operation this zap has no script for).
func prepareOp(ps PreparedStep, id string, op *plan.Op, r resolver, c Context) (PreparedStep, error) {
	z := &ZapOp{Name: string(op.Name), Privilege: op.Privilege, Timeout: seconds(op.Timeout)}
	if !op.Path.IsZero() {
		path, err := r.path("path", op.Path, c.Home)
		if err != nil {
			return PreparedStep{}, err
		}
		z.Args, z.HasPath = append(z.Args, path), true
	}
	for i, a := range op.Args {
		if strings.ContainsRune(a, 0) {
			return PreparedStep{}, &PrepareError{ID: id, Msg: fmt.Sprintf("args[%d]: holds a NUL", i)}
		}
	}
	z.Args = append(z.Args, op.Args...)
	for i, t := range op.TextArgs {
		a, err := r.env(fmt.Sprintf("text_args[%d]", i), t)
		if err != nil {
			return PreparedStep{}, err
		}
		z.Args = append(z.Args, a)
	}
	if c.Scripts == nil {
		return PreparedStep{}, &PrepareError{ID: id, Msg: fmt.Sprintf("no script for the operation %q", op.Name)}
	}
	script, ok := c.Scripts(op.Name)
	if !ok {
		return PreparedStep{}, &PrepareError{ID: id, Msg: fmt.Sprintf("this zap has no operation %q", op.Name)}
	}
	z.Script = script.Text
	ps.Op = z
	return ps, nil
}

func seconds(n int) time.Duration { return time.Duration(n) * time.Second }

// StateDir is where Zap keeps its own state on a target; no resource may
// manage it.
const StateDir = "/var/lib/zap"

// resolver resolves one resource's texts, naming the resource and field in
// what it refuses.
type resolver struct {
	id     string
	lookup Lookup
}

func (r resolver) fail(field, format string, args ...any) error {
	return &PrepareError{ID: r.id, Msg: field + ": " + fmt.Sprintf(format, args...)}
}

// text resolves t; a name the plan doesn't record is refused.
func (r resolver) text(field string, t declaration.Text) (string, error) {
	var missing string
	s, _ := t.Resolve(func(name string) (string, bool) {
		v, ok := r.lookup(name)
		if !ok && missing == "" {
			missing = name
		}
		return v, true
	})
	if missing != "" {
		return "", r.fail(field, "references %s, which the plan's references block doesn't record", missing)
	}
	return s, nil
}

// content gives put p its content: a put's inline content and digest as
// planned; a template rendered with its references resolved, refusing a
// variable's value a template can't take (naming the variable, never the
// value) before anything runs; a project file's bytes, decoded; a source's path, resolved like any path,
// whose bytes are read when the step runs; or remote content's url, auth
// and pin, whose bytes are fetched when the step runs.
func (r resolver) content(p *Put, op *plan.Op, home string) error {
	switch {
	case op.Content != nil:
		p.Content, p.SHA512 = []byte(*op.Content), op.SHA512
	case op.From != nil && op.From.Type == declaration.ContentTemplate && op.From.Template != nil:
		text, err := template.Content(*op.From.Template, op.From.Vars, op.From.Kinds, template.Lookup(r.lookup))
		if err != nil {
			return &PrepareError{ID: r.id, Msg: err.Error()}
		}
		sum := sha512.Sum512([]byte(text))
		p.Content, p.SHA512 = []byte(text), hex.EncodeToString(sum[:])
	case op.From != nil && op.From.Type == declaration.ContentBytes && op.From.Base64 != nil:
		b, err := op.From.Bytes()
		if err != nil {
			return r.fail("content.base64", "%v", err)
		}
		sum := sha512.Sum512(b)
		p.Content, p.SHA512 = b, hex.EncodeToString(sum[:])
	case op.From != nil && op.From.Type == declaration.ContentSource && op.From.Path != nil:
		// Resolved like a path field, except that a source may be read
		// from under Zap's own /var/lib/zap: only a path a resource
		// manages is kept out of it.
		src, err := r.text("content.path", *op.From.Path)
		if err != nil {
			return err
		}
		if err := declaration.CheckPathValue(src); err != nil {
			return r.fail("content.path", "%v", err)
		}
		if home == "" && expandHome(src, "/") != src {
			return r.fail("content.path", "%s is under ~, and the target declares no home (Zap never guesses a remote home)", src)
		}
		src = clean(expandHome(src, home))
		if !strings.HasPrefix(src, "/") || src == "/" {
			return r.fail("content.path", "%q is not the absolute path of a file", src)
		}
		p.Source = src
	case op.From != nil && op.From.Type == declaration.ContentRemote && op.From.URL != nil:
		rm, err := r.prepareRemote(op.From)
		if err != nil {
			return err
		}
		p.Remote = rm
	default:
		return &PrepareError{ID: r.id, Msg: "the put step has no content"}
	}
	return nil
}

// command resolves a command's text, refusing a value it can't take.
func (r resolver) command(field string, t declaration.Text) (string, error) {
	for _, name := range t.Refs() {
		v, _ := r.lookup(name)
		switch {
		case strings.Contains(v, "'"):
			return "", r.fail(field, "the value of %s holds a single quote, which a command can't take (hand it to the command through env instead)", name)
		case strings.ContainsRune(v, 0):
			return "", r.fail(field, "the value of %s holds a NUL byte", name)
		case strings.ContainsAny(v, string([]rune{declaration.RefOpen, declaration.RefClose})):
			return "", r.fail(field, "the value of %s holds a reference delimiter (U+FDD0 or U+FDD1)", name)
		}
	}
	return r.text(field, t)
}

// env resolves an env value, which may hold anything but a NUL and the
// reference delimiters.
func (r resolver) env(field string, t declaration.Text) (string, error) {
	for _, name := range t.Refs() {
		v, _ := r.lookup(name)
		if strings.ContainsRune(v, 0) || strings.ContainsAny(v, string([]rune{declaration.RefOpen, declaration.RefClose})) {
			return "", r.fail(field, "the value of %s holds a NUL or a reference delimiter (U+FDD0 or U+FDD1)", name)
		}
	}
	return r.text(field, t)
}

// path resolves a path: references, then ~ and $HOME against home. The
// result is absolute, with repeated and trailing slashes dropped; . and ..
// stay as written, for the kernel to read.
func (r resolver) path(field string, t declaration.Text, home string) (string, error) {
	s, err := r.text(field, t)
	if err != nil {
		return "", err
	}
	if err := declaration.CheckPathValue(s); err != nil {
		return "", r.fail(field, "%v", err)
	}
	if home == "" && expandHome(s, "/") != s {
		return "", r.fail(field, "%s is under ~, and the target declares no home (Zap never guesses a remote home)", s)
	}
	s = expandHome(s, home)
	if !strings.HasPrefix(s, "/") {
		return "", r.fail(field, "%q is not an absolute path", s)
	}
	s = clean(s)
	if last := s[strings.LastIndex(s, "/")+1:]; last == "." || last == ".." {
		return "", r.fail(field, "%s ends in %s, which names no entry of its own", s, last)
	}
	if underState(s) {
		return "", r.fail(field, "%s is at or under Zap's own %s", s, StateDir)
	}
	return s, nil
}

// expandHome resolves a leading ~ or $HOME against home.
func expandHome(s, home string) string {
	for _, prefix := range []string{"~", "$HOME"} {
		if rest, ok := strings.CutPrefix(s, prefix); ok && (rest == "" || rest[0] == '/') {
			return home + rest
		}
	}
	return s
}

// clean drops repeated slashes and a trailing slash.
func clean(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '/' && b.Len() > 0 && strings.HasSuffix(b.String(), "/") {
			continue
		}
		b.WriteByte(s[i])
	}
	out := b.String()
	if len(out) > 1 {
		out = strings.TrimSuffix(out, "/")
	}
	return out
}

// underState reports whether a clean path is /var/lib/zap or under it, its
// components read as written.
func underState(s string) bool {
	return s == StateDir || strings.HasPrefix(s, StateDir+"/")
}

// aboveOrAtState reports whether a clean path is /var/lib/zap, under it, or
// a directory above it.
func aboveOrAtState(s string) bool {
	return underState(s) || s == "/" || s == "/var" || s == "/var/lib"
}
