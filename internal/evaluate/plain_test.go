package evaluate

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestSlotsFound(t *testing.T) {
	// The fast path reads goja's internals; a goja upgrade that changes
	// them turns it off, silently but for this test.
	if slots() == nil {
		t.Fatal("goja's layout is not the one checked for: every property is read through its descriptor (slower); update slots.go")
	}
}

// TestRunAccessorsRefused: a getter or a setter, wherever it sits, is
// refused naming its path, and never runs.
func TestRunAccessorsRefused(t *testing.T) {
	for _, c := range []struct{ name, arg, want string }{
		{"literal getter", `{id: 'x', get path() { console.log('ran'); return '~/x'; }}`,
			`zap.directory "x": path: a getter is not plain data: write the value`},
		{"literal setter", `{id: 'x', path: '~/x', set mode(v) { console.log('ran'); }}`,
			`zap.directory "x": mode: a setter is not plain data: write the value`},
		{"defineProperty getter", `Object.defineProperty({id: 'x'}, 'path', {get() { console.log('ran'); return '~/x'; }, enumerable: true})`,
			`zap.directory "x": path: a getter is not plain data: write the value`},
		{"defineProperty setter", `Object.defineProperty({id: 'x', path: '~/x'}, 'owner', {set(v) { console.log('ran'); }, enumerable: true})`,
			`zap.directory "x": owner: a setter is not plain data: write the value`},
		{"defineProperty getter on the id", `Object.defineProperty({path: '~/x'}, 'id', {get() { console.log('ran'); return 'x'; }, enumerable: true})`,
			`zap.directory: id: a getter is not plain data: write the value`},
		{"class getter", `new (class Dir { constructor() { this.id = 'x'; } get path() { console.log('ran'); return '~/x'; } })()`,
			`zap.directory "x": an instance of Dir is not plain data: write a plain object, such as {...value}`},
		{"class getter, own", `new (class Dir { constructor() { Object.defineProperty(this, 'path', {get() { console.log('ran'); }, enumerable: true}); } })()`,
			`zap.directory: an instance of Dir is not plain data: write a plain object, such as {...value}`},
		{"nested getter", `{id: 'x', path: '~/x', owner: 'o', group: {get name() { console.log('ran'); return 'g'; }}}`,
			`zap.directory "x": group.name: a getter is not plain data: write the value`},
		{"nested getter deeper", `{id: 'x', path: '~/x', mode: {a: {b: [{get c() { console.log('ran'); return 1; }}]}}}`,
			`zap.directory "x": mode.a.b[0].c: a getter is not plain data: write the value`},
		{"getter in an array element", `{id: 'x', path: '~/x', depends_on: Object.defineProperty(['a', 'b'], 1, {get() { console.log('ran'); return 'b'; }, enumerable: true})}`,
			`zap.directory "x": depends_on[1]: a getter is not plain data: write the value`},
		{"setter in an array element", `{id: 'x', path: '~/x', depends_on: Object.defineProperty(['a', 'b'], 0, {set(v) { console.log('ran'); }, enumerable: true})}`,
			`zap.directory "x": depends_on[0]: a setter is not plain data: write the value`},
		{"getter in an object in an array", `{id: 'x', path: '~/x', depends_on: ['a', {get b() { console.log('ran'); return 'b'; }}]}`,
			`zap.directory "x": depends_on[1].b: a getter is not plain data: write the value`},
		{"getter under an index key", `{id: 'x', path: '~/x', mode: {get 0() { console.log('ran'); return 1; }}}`,
			`zap.directory "x": mode.0: a getter is not plain data: write the value`},
		{"getter on a null-prototype object", `Object.defineProperty(Object.assign(Object.create(null), {id: 'x'}), 'path', {get() { console.log('ran'); }, enumerable: true})`,
			`zap.directory "x": path: a getter is not plain data: write the value`},
		{"getter after a frozen field", `Object.freeze({id: 'x', get path() { console.log('ran'); return '~/x'; }})`,
			`zap.directory "x": path: a getter is not plain data: write the value`},
	} {
		for _, descriptors := range []bool{false, true} {
			name := c.name
			if descriptors {
				name += ", descriptors only"
			}
			t.Run(name, func(t *testing.T) {
				descriptorsOnly = descriptors
				defer func() { descriptorsOnly = false }()
				var console bytes.Buffer
				_, err := eval(t, `function (zap) { zap.target({local: true}); zap.directory(`+c.arg+`); }`, Options{Console: &console})
				var e *Error
				if !errors.As(err, &e) || e.Msg != c.want {
					t.Fatalf("err = %v, want %q", err, c.want)
				}
				if console.Len() != 0 {
					t.Fatalf("the config's code ran during conversion: %q", console.String())
				}
			})
		}
	}
}

// TestRunHiddenAccessorsNotRun: a getter that isn't enumerable is not part
// of the data: it is neither read nor run, so the field is missing.
func TestRunHiddenAccessorsNotRun(t *testing.T) {
	var console bytes.Buffer
	_, err := eval(t, `function (zap) {
		zap.target({local: true});
		zap.directory(Object.defineProperty({id: 'x'}, 'path', {get() { console.log('ran'); return '~/x'; }}));
	}`, Options{Console: &console})
	var e *Error
	if !errors.As(err, &e) || e.Msg != `zap.directory "x": path: required field missing` {
		t.Fatalf("err = %v, want path missing", err)
	}
	if console.Len() != 0 {
		t.Fatalf("the getter ran: %q", console.String())
	}
}

// TestSlotsMatchDescriptors: every config declares the same, byte for byte,
// or fails with the same error, whether properties are read from goja's
// slots or through their descriptors.
func TestSlotsMatchDescriptors(t *testing.T) {
	if slots() == nil {
		t.Skip("goja's layout is not the one checked for: there are no slots to compare (TestSlotsFound fails)")
	}
	args := []string{
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x\ny\u00e9\ud83d\ude00'}, mode: '644', depends_on: ['d']}`,
		`{id: 'a', path: '~/a', content: {type: 'template', template: '{{a}} {{b}} {{c}}', vars: {c: null, b: [1, 'x', {y: true}], a: -0, 10: 'ten', 2: 'two', '\u00e9': 1, '-1': 2}}}`,
		`{id: 'a', path: '~/a', content: {type: 'template', template: '', vars: Object.freeze({z: 1, a: [Object.freeze(['x'])]})}}`,
		`{id: 'a', path: '~/a', content: {type: 'template', template: '', vars: Object.defineProperty({z: 1}, 'a', {value: 2, enumerable: true})}}`,
		`{id: 'a', path: '~/a', content: {type: 'template', template: '', vars: Object.defineProperty({z: 1}, 'hidden', {value: 2})}}`,
		`(() => { const o = {id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, mode: '600', owner: 'x'}; delete o.owner; return o; })()`,
		`(() => { const o = {id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, zz: 1, b: 2}; delete o.zz; return o; })()`,
		`(() => { const o = {id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}}; o.zz = 'x'; o[3] = 'y'; return o; })()`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, b: NaN, 7: NaN, 1: NaN}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, b: NaN, '01': NaN}`,
		`Object.assign(Object.create(null), {id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}})`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, depends_on: (() => { const a = ['d']; a.length = 3; return a; })()}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, depends_on: (() => { const a = []; a[5] = 'd'; return a; })()}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, depends_on: (() => { const a = ['d']; a.length = 2 ** 32 - 1; return a; })()}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, depends_on: Object.freeze(['d', 'e'])}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, depends_on: ['d', , 'e']}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, depends_on: ['d', undefined]}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: '\ud800x'}}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: '\ufffd\ud800'}}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, $text: 1}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x', $env: 1}}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, [Symbol('s')]: 1}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: zap.env('X') + '!'}}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, owner: new Proxy({}, {})}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, depends_on: new Proxy(['d'], {})}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, mode: new (class M {})()}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, mode: new Uint8Array(2)}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, mode: new (class L extends Array {})()}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, mode: (function () { return arguments; })(1)}`,
		`(() => { const o = {id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, depends_on: []}; o.depends_on.push(o); return o; })()`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, mode: 10n}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, mode: NaN}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, mode: {get x() { return 1; }, y: 2}}`,
		`{'\u00e9': 'a', id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}}`,
		`{id: 'a', path: '~/a', content: {type: 'inline', content: 'x'}, 1: 'a'}`,
		`JSON.parse('{"id": "a", "path": "~/a", "content": {"type": "inline", "content": "x"}, "depends_on": ["d"]}')`,
		`{...{id: 'a', path: '~/a'}, content: {type: 'inline', content: 'x'}, mode: '644'}`,
	}
	for _, arg := range args {
		body := `function (zap) { zap.target({local: true}); zap.directory({id: 'd', path: '~/d'}); zap.file(` + arg + `); }`
		got, gotErr := evalEncoded(t, body)
		descriptorsOnly = true
		want, wantErr := evalEncoded(t, body)
		descriptorsOnly = false
		if got != want || gotErr != wantErr {
			t.Errorf("%s:\nslots:       %s %s\ndescriptors: %s %s", arg, got, gotErr, want, wantErr)
		}
	}
}

// evalEncoded runs body and returns the declaration it encodes to or the
// error it fails with.
func evalEncoded(t *testing.T, body string) (string, string) {
	t.Helper()
	d, err := eval(t, body, Options{})
	if err != nil {
		return "", err.Error()
	}
	out, err := d.Encode()
	if err != nil {
		return "", "encode: " + err.Error()
	}
	if strings.TrimSpace(string(out)) == "" {
		t.Fatal("empty declaration")
	}
	return string(out), ""
}
