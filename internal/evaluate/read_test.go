package evaluate

import (
	"slices"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"

	"github.com/zap-go/zap/internal/schema"
)

// TestHooksNamed requires every hook a field names to be one the reader
// has, and every hook to be named by a field.
func TestHooksNamed(t *testing.T) {
	named := map[string]bool{}
	for _, s := range schema.All() {
		for _, f := range s.Fields {
			if f.Hook == "" {
				continue
			}
			named[f.Hook] = true
			if hooks[f.Hook] == nil {
				t.Errorf("%v.%s: no hook %q", s.Type, f.GoName, f.Hook)
			}
		}
	}
	for h := range hooks {
		if !named[h] {
			t.Errorf("hook %q is named by no field", h)
		}
	}
}

// TestReaderMessages holds the schema-driven reader to the messages the
// hand-written readers gave where no script checks them: a refused enum
// outside a variant, an instead text per kind of field, a variant's keys
// and a missing type field.
func TestReaderMessages(t *testing.T) {
	for _, c := range []struct{ decl, want string }{
		{`zap.build({id: 'b', source: {type: 'git'}, run: 'make', output: '/x'})`,
			`zap.build "b": source.type: "git" is not a source type (want 'remote')`},
		{`zap.build({id: 'b', source: {type: 'git'}, run: 'make', output: '/x'})`,
			`zap.build "b": source.url: required field missing`},
		{`zap.build({id: 'b', source: {type: 'remote', url: 'https://x/a.tgz', verify: {scheme: zap.env('S'), public_key: 'RW'}}, run: 'make', output: '/x'})`,
			`zap.build "b": source.verify.scheme: takes no reference (zap.env): write 'minisign'`},
		{`zap.pipeline({id: 'p', steps: [{id: zap.env('S'), run: 'true'}]})`,
			`zap.pipeline "p": steps[0].id: takes no reference (zap.env): a step's fields other than run are written out`},
		{`zap.pkg({id: 'p', from: {apt: 'x'}, check: 'test -x ' + zap.env('S')})`,
			`zap.pkg "p": check: takes no reference (zap.env) in a command check`},
		{`zap.file({id: 'f', path: '/f', content: {type: 'inline', content: 'x', url: 'u'}})`,
			`zap.file "f": content: unknown field "url"`},
		{`zap.file({id: 'f', path: '/f', content: {content: 'x'}})`,
			`zap.file "f": content.type: required field missing`},
		{`zap.verify({id: 'v', assertions: [{type: 'command', run: 'true', path: '/x'}]})`,
			`zap.verify "v": assertions[0]: unknown field "path"`},
		{`zap.user({id: 'u', username: 'u', home_mode: 711})`,
			`zap.user "u": home_mode: want a string such as '644', not a number`},
		{`zap.service({id: 's', service: 's', enabled: zap.env('S')})`,
			`zap.service "s": enabled: takes no reference (zap.env): write true or false`},
	} {
		_, err := eval(t, `function (zap) { zap.target({local: true}); `+c.decl+`; }`, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to say %q", c.decl, err, c.want)
		}
	}
}

// TestJSONPaths finds where null is data from the schema: a file's
// template variables, and nowhere in any other kind.
func TestJSONPaths(t *testing.T) {
	for _, k := range declaration.Supported {
		got := jsonPaths(k)
		want := []string(nil)
		if k == declaration.KindFile {
			want = []string{"content.vars."}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: jsonPaths = %q, want %q", k, got, want)
		}
	}
}

// TestUnreadKeyFound: the key nobody read is the one reported unknown,
// whether the object's keys are searched through (manyKeys or fewer) or
// looked up by the map made for more.
func TestUnreadKeyFound(t *testing.T) {
	for _, n := range []int{3, manyKeys, manyKeys + 1, 40} {
		o := &object{}
		for i := range n {
			o.add("k"+strings.Repeat("x", i), "v")
		}
		d := &decoder{}
		f := d.fields(o, "")
		unread := o.keys[n/2]
		for _, k := range o.keys {
			if k != unread {
				f.str(k, true, "")
			}
		}
		f.str("absent", false, "")
		f.done()
		if len(d.errs) != 1 || !strings.Contains(d.errs[0].Msg, `unknown field "`+unread+`"`) {
			t.Errorf("%d keys: %v, want %q alone reported unknown", n, d.errs, unread)
		}
	}
}
