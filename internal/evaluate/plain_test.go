package evaluate

import (
	"bytes"
	"errors"
	"testing"
)

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
		t.Run(c.name, func(t *testing.T) {
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
