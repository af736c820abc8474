package evaluate

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/dop251/goja"

	"github.com/zap-go/zap/internal/schema"
	"github.com/zap-go/zap/pkg/declaration"
)

// builder is the zap object a config's function receives. It collects the
// declaration and every error it threw, so a config that catches one still
// fails.
type builder struct {
	rt   *goja.Runtime
	conv *converter
	pos  *positions
	obj  *goja.Object

	decl      declaration.Declaration
	targetSet bool
	deploySet bool
	issued    map[string]bool
	// files reads the project files the config names; project is what
	// it read, by the path relative to the project.
	files   Files
	project map[string]projectRead
	mask    map[string]bool
	unmask  map[string]bool

	// errs are the config's problems, the first MaxErrors of them;
	// dropped counts the rest.
	errs    []*Error
	dropped int
	// methods are the builder's methods, for a config that calls one
	// that isn't; kinds those of them that declare a resource. members
	// is the zap object's own properties.
	methods, kinds []string
	members        *members
	// sites[i] is where the config declared decl.Resources[i]; target and
	// deploy where it called zap.target and zap.deploy.
	sites              []site
	targetAt, deployAt site

	// The builder is open until the config's function has returned and,
	// when it returned a promise, that promise has settled; finished closes
	// it for good once the evaluation is over.
	returned bool
	promise  *goja.Promise
	finished bool
}

func newBuilder(rt *goja.Runtime, conv *converter, pos *positions) *builder {
	b := &builder{
		rt:      rt,
		conv:    conv,
		pos:     pos,
		issued:  map[string]bool{},
		project: map[string]projectRead{},
		mask:    map[string]bool{},
		unmask:  map[string]bool{},
	}
	b.members = &members{b: b, vals: map[string]goja.Value{}}
	b.obj = rt.NewDynamicObject(b.members)
	b.decl.Format = declaration.Format
	b.decl.Resources = []declaration.Resource{}
	set := func(name string, fn func(goja.FunctionCall) (goja.Value, error)) {
		b.obj.Set(name, b.method(name, fn))
		b.methods = append(b.methods, name)
	}
	kind := func(name string, fn func(goja.FunctionCall) (goja.Value, error)) {
		set(name, fn)
		b.kinds = append(b.kinds, name)
	}
	set("target", b.target)
	set("env", b.env)
	set("mask", func(call goja.FunctionCall) (goja.Value, error) { return b.names("mask", b.mask, call) })
	set("unmask", func(call goja.FunctionCall) (goja.Value, error) { return b.names("unmask", b.unmask, call) })
	kind("file", b.resource(declaration.KindFile))
	kind("directory", b.resource(declaration.KindDirectory))
	kind("link", b.resource(declaration.KindLink))
	kind("script", b.resource(declaration.KindScript))
	// zap.pkg declares a resource of type "package".
	kind("pkg", b.resourceAs("zap.pkg", declaration.KindPackage))
	kind("apt_repo", b.resource(declaration.KindAptRepo))
	kind("installer", b.resource(declaration.KindInstaller))
	kind("user", b.resource(declaration.KindUser))
	kind("service", b.resource(declaration.KindService))
	kind("database", b.resource(declaration.KindDatabase))
	kind("swap", b.resource(declaration.KindSwap))
	kind("firewall", b.resource(declaration.KindFirewall))
	kind("verify", b.resource(declaration.KindVerify))
	kind("pipeline", b.resource(declaration.KindPipeline))
	kind("build", b.resource(declaration.KindBuild))
	// A kind registered from outside pkg/declaration (a test build's,
	// testonly_on.go) is declared as zap.TYPE too. No message lists it
	// (it isn't in b.methods), so a test build's messages are a user's
	// build's.
	for _, k := range declaration.Registered() {
		b.obj.Set(string(k), b.method(string(k), b.resource(k)))
	}
	set("deploy", b.deploy)
	return b
}

func (b *builder) closed() bool {
	if b.finished {
		return true
	}
	if !b.returned {
		return false
	}
	return b.promise == nil || b.promise.State() != goja.PromiseStatePending
}

// method wraps a builder method: it refuses once the builder is closed,
// records its error and throws it into the config.
func (b *builder) method(name string, fn func(goja.FunctionCall) (goja.Value, error)) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		if b.closed() {
			b.throw(&Error{
				Msg:  fmt.Sprintf("zap.%s was called after the config's function returned: a promise the config didn't await made the call", name),
				Hint: "await every promise that calls the builder (or return it), so the call happens before the function finishes",
			})
		}
		v, err := fn(call)
		if err != nil {
			b.throw(err)
		}
		if v == nil {
			return b.obj
		}
		return v
	}
}

// throw records err and throws it into the config as a TypeError.
func (b *builder) throw(err error) {
	e, ok := err.(*Error)
	if !ok {
		e = &Error{Msg: err.Error()}
	}
	b.add(e)
	panic(b.rt.NewTypeError(e.Msg))
}

// add records the problem e, placed at the call the config is making when
// it names no place of its own.
func (b *builder) add(e *Error) {
	if len(b.errs) >= MaxErrors {
		b.dropped++
		return
	}
	if e.Pos == "" {
		e.Pos = b.pos.caller(b.rt)
	}
	b.errs = append(b.errs, e)
}

// refuse records the problems d found in the data of the call label made
// at at, each placed where the config wrote the field when that can be
// known (site.field).
func (b *builder) refuse(label string, at site, d *decoder) {
	for _, fe := range d.errs {
		where, ok := d.at[fe]
		if !ok {
			where = fe.Path
		}
		b.add(&Error{Pos: b.pos.field(at, where), Msg: label + ": " + fe.Error()})
	}
	b.dropped += d.dropped
}

// asFieldError is a conversion's error as a problem at its path.
func asFieldError(err error) *fieldError {
	var fe *fieldError
	if errors.As(err, &fe) {
		return fe
	}
	return &fieldError{Msg: err.Error()}
}

// problems is every problem the config made, as one error, or nil.
func (b *builder) problems() error { return join(b.errs, b.dropped) }

// one returns the single object argument of a builder call.
func one(call goja.FunctionCall, label string) (goja.Value, error) {
	switch n := len(call.Arguments); {
	case n == 0 || goja.IsUndefined(call.Arguments[0]):
		example := "{id: 'x', ...}"
		if label == "zap.target" {
			example = "{local: true}"
		}
		return nil, &Error{Msg: fmt.Sprintf("%s takes an object, such as %s(%s)", label, label, example)}
	case n > 1:
		return nil, &Error{Msg: fmt.Sprintf("%s takes one object, not %d arguments", label, n)}
	}
	return call.Arguments[0], nil
}

func (b *builder) target(call goja.FunctionCall) (goja.Value, error) {
	return nil, single(b, call, "zap.target", &b.targetSet, &b.targetAt, &b.decl.Target, &Error{
		Msg:  "a config declares one target",
		Hint: "for several hosts, write one config per host (or one module per role imported by each) and run zap once per host",
	})
}

// single reads the object argument of label, a block a config declares
// once (zap.target, zap.deploy), into *into by its schema (readStruct). *set records the
// first call; a second is refused with twice, its message after "label
// was called twice: ".
//
// Its problems are recorded, not thrown (see resourceAs).
func single[T any](b *builder, call goja.FunctionCall, label string, set *bool, at *site, into *T, twice *Error) error {
	arg, err := one(call, label)
	if err != nil {
		b.add(err.(*Error))
		return nil
	}
	if *set {
		b.add(&Error{Msg: label + " was called twice: " + twice.Msg, Hint: twice.Hint})
		return nil
	}
	here := b.pos.site(b.rt)
	tree, err := b.conv.convert(arg, "")
	if err != nil {
		b.refuse(label, here, &decoder{errs: []*fieldError{asFieldError(err)}})
		return nil
	}
	d := &decoder{issued: b.issued}
	f := d.fields(tree, "")
	var v T
	rv := reflect.ValueOf(&v).Elem()
	if rv.Kind() == reflect.Pointer {
		rv.Set(reflect.New(rv.Type().Elem()))
		rv = rv.Elem()
	}
	readStruct(f, rv)
	f.done()
	if d.failures() > 0 {
		b.refuse(label, here, d)
		return nil
	}
	*set, *into, *at = true, v, here
	return nil
}

func (b *builder) env(call goja.FunctionCall) (goja.Value, error) {
	if len(call.Arguments) != 1 {
		return nil, &Error{Msg: fmt.Sprintf("zap.env takes one variable name, such as zap.env('API_URL'), not %d arguments", len(call.Arguments))}
	}
	name, err := b.name("zap.env", call.Arguments[0])
	if err != nil {
		return nil, err
	}
	b.issued[name] = true
	return b.rt.ToValue(marker(name)), nil
}

// name reads a variable name argument.
func (b *builder) name(label string, v goja.Value) (string, error) {
	s, ok := v.(goja.String)
	if !ok {
		return "", &Error{Msg: fmt.Sprintf("%s takes a variable name, not %s", label, jsType(v))}
	}
	name := s.String()
	if hasMarker(name) {
		inner := strings.Trim(name, string([]rune{declaration.RefOpen, declaration.RefClose}))
		return "", &Error{Msg: fmt.Sprintf("%s takes a variable name, not a reference: write %s('%s')", label, label, inner)}
	}
	if !declaration.ValidEnvName(name) {
		return "", &Error{Msg: fmt.Sprintf("%s: %q is not an environment variable name (letters, digits and _, not starting with a digit)", label, name)}
	}
	return name, nil
}

func (b *builder) names(method string, set map[string]bool, call goja.FunctionCall) (goja.Value, error) {
	label := "zap." + method
	if len(call.Arguments) == 0 {
		return nil, &Error{Msg: fmt.Sprintf("%s takes variable names, such as %s('API_TOKEN')", label, label)}
	}
	for _, a := range call.Arguments {
		name, err := b.name(label, a)
		if err != nil {
			return nil, err
		}
		set[name] = true
	}
	return nil, nil
}

func jsType(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	if _, ok := goja.AssertFunction(v); ok {
		return "a function"
	}
	switch v.(type) {
	case *goja.Object:
		return "an object"
	case *goja.Symbol:
		return "a Symbol"
	}
	switch v.Export().(type) {
	case int64, float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "a " + v.ExportType().String()
}

// resource returns the method declaring a resource of kind.
func (b *builder) resource(kind declaration.Kind) func(goja.FunctionCall) (goja.Value, error) {
	return b.resourceAs("zap."+string(kind), kind)
}

// resourceAs returns the method label declaring a resource of kind.
//
// A problem in what the call declares is recorded and the call returns as
// if it had declared nothing, rather than throwing: the config runs on, so
// one evaluation reports every such problem, each where the config made
// it. The evaluation fails all the same.
func (b *builder) resourceAs(label string, kind declaration.Kind) func(goja.FunctionCall) (goja.Value, error) {
	nulls := jsonPaths(kind)
	return func(call goja.FunctionCall) (goja.Value, error) {
		arg, err := one(call, label)
		if err != nil {
			b.add(err.(*Error))
			return nil, nil
		}
		if len(nulls) > 0 {
			// A template variable's value is the one place null is data.
			b.conv.nullOK = func(path string) bool {
				return slices.ContainsFunc(nulls, func(p string) bool { return strings.HasPrefix(path, p) })
			}
			defer func() { b.conv.nullOK = nil }()
		}
		here := b.pos.site(b.rt)
		tree, err := b.conv.convert(arg, "")
		if err != nil {
			b.refuse(b.conv.label(label, arg), here, &decoder{errs: []*fieldError{asFieldError(err)}})
			return nil, nil
		}
		d := &decoder{issued: b.issued}
		r, idOK := d.resource(tree, kind)
		if d.failures() > 0 {
			named := label
			if idOK {
				named = fmt.Sprintf("%s %q", label, r.ID)
			}
			b.refuse(named, here, d)
			return nil, nil
		}
		if field, msg := b.checkProjectContent(r.ProjectContent()); msg != "" {
			b.add(&Error{Pos: b.pos.field(here, field), Msg: fmt.Sprintf("%s %q: %s: %s", label, r.ID, field, msg)})
			return nil, nil
		}
		b.decl.Resources = append(b.decl.Resources, r)
		b.sites = append(b.sites, here)
		return nil, nil
	}
}

// resource reads tree, a resource of kind: its common fields, then its
// body by its schema (readStruct). idOK reports whether its id was read.
func (d *decoder) resource(tree any, kind declaration.Kind) (r declaration.Resource, idOK bool) {
	f := d.fields(tree, "")
	r.Type = kind
	r.ID = f.str("id", true, schema.Instead["id"])
	idOK = d.failures() == 0
	r.Name = f.str("name", false, schema.Instead["name"])
	r.DependsOn = f.strs("depends_on", schema.Instead["ids"])
	readStruct(f, reflect.ValueOf(r.NewBody()).Elem())
	f.done()
	return r, idOK
}

// jsonPaths are the prefixes of the paths in a resource of kind where a
// value is any JSON, null included: inside the fields the vars hook reads
// (a file's content.vars.).
func jsonPaths(kind declaration.Kind) []string {
	r := declaration.Resource{Common: declaration.Common{Type: kind}}
	body := r.NewBody()
	if body == nil {
		return nil
	}
	var out []string
	var walk func(t reflect.Type, path string)
	walk = func(t reflect.Type, path string) {
		for _, f := range schema.Of(t).Fields {
			switch p := child(path, f.Name); {
			case f.Hook == "vars":
				out = append(out, p+".")
			case f.Hook == "" && f.Shape == schema.Object:
				walk(elemType(f.Type), p)
			}
		}
	}
	walk(reflect.TypeOf(body).Elem(), "")
	return out
}

// label names a resource call by the id its argument holds, when it holds
// one as a plain string, without running the config's code.
func (c *converter) label(label string, arg goja.Value) string {
	o, ok := arg.(*goja.Object)
	if !ok || o.ExportType() == proxyType {
		return label
	}
	v, err := c.own(o, "id", "id")
	if err != nil {
		return label
	}
	if s, ok := v.(goja.String); ok && !hasMarker(s.String()) {
		return fmt.Sprintf("%s %q", label, s.String())
	}
	return label
}

// deploy reads the deploy block; a config declares one.
func (b *builder) deploy(call goja.FunctionCall) (goja.Value, error) {
	return nil, single(b, call, "zap.deploy", &b.deploySet, &b.deployAt, &b.decl.Deploy, &Error{
		Msg:  "a config declares one deploy block",
		Hint: "for several applications, write one config per application",
	})
}

// declaration returns what the config declared.
func (b *builder) declaration() (*declaration.Declaration, error) {
	if !b.targetSet {
		return nil, &Error{Msg: "the config declares no target", Hint: "call zap.target({local: true}) in the config's function"}
	}
	d := b.decl
	d.Mask = sortedSet(b.mask)
	d.Unmask = sortedSet(b.unmask)
	return &d, nil
}

func sortedSet(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
