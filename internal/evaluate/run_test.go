package evaluate

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zap-go/zap/pkg/declaration"
)

// eval runs JavaScript whose default export is body, a function of zap.
func eval(t *testing.T, body string, opts Options) (*declaration.Declaration, error) {
	t.Helper()
	opts.Export = "__zap_config"
	s := Script{Name: "t.js", Code: "var __zap_config = { default: " + body + " };\n"}
	return Run(context.Background(), s, opts)
}

// wantError runs body and requires an *Error whose message contains want.
func wantError(t *testing.T, body, want string) *Error {
	t.Helper()
	_, err := eval(t, body, Options{})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want an *Error containing %q", err, err, want)
	}
	if !strings.Contains(e.Error(), want) {
		t.Fatalf("err = %q, want it to contain %q", e.Error(), want)
	}
	return e
}

func TestRunDeclares(t *testing.T) {
	d, err := eval(t, `function (zap) {
		zap.target({local: true}).directory({id: 'a', path: '~/a'}).link({id: 'l', path: '~/l', target: '~/a'});
	}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":"zap.declaration/1","resources":[{"id":"a","path":"~/a","type":"directory"},{"id":"l","path":"~/l","target":"~/a","type":"link"}],"target":{"local":true}}`
	if string(out) != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
}

func TestRunTimeout(t *testing.T) {
	start := time.Now()
	_, err := eval(t, `function (zap) { zap.target({local: true}); for (;;) {} }`, Options{Timeout: 50 * time.Millisecond})
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "ran longer than 50ms") {
		t.Fatalf("err = %v, want the timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the timeout took %v", d)
	}
}

// TestRunNoTimeout: with NoTimeout nothing but ctx ends a loop (zap-eval's
// watchdog is another process).
func TestRunNoTimeout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := Run(ctx, Script{Name: "t.js", Code: "var m = { default: function () { for (;;) {} } };"}, Options{Export: "m", Timeout: NoTimeout})
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("err = %v, want the cancellation", err)
	}
}

func TestRunHeapCap(t *testing.T) {
	_, err := eval(t, `function (zap) {
		const keep = [];
		for (let i = 0; ; i++) { keep.push('x'.repeat(1024) + i); }
	}`, Options{MaxHeap: 64 << 20, Timeout: NoTimeout})
	// No clock: under -race on a loaded machine the loop can take longer
	// than any timeout short enough for a test, and only the cap ends it.
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "more than 64 MiB of memory") {
		t.Fatalf("err = %v, want the heap cap", err)
	}
}

func TestRunCanceled(t *testing.T) {
	// At once (before the config's first step, during the set-up the
	// limits already watch, as a loaded machine can make 30 ms) and later.
	for _, after := range []time.Duration{0, 30 * time.Millisecond} {
		ctx, cancel := context.WithCancel(context.Background())
		if after == 0 {
			cancel()
		} else {
			time.AfterFunc(after, cancel)
		}
		_, err := Run(ctx, Script{Name: "t.js", Code: "var m = { default: function () { for (;;) {} } };"}, Options{Export: "m"})
		var e *Error
		if err == nil || errors.As(err, &e) || !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled after %v: err = %v (%T), want a cancellation that isn't the config's problem", after, err, err)
		}
		cancel()
	}
}

func TestRunLateCalls(t *testing.T) {
	for name, body := range map[string]string{
		"microtask after a sync return": `function (zap) {
			zap.target({local: true});
			Promise.resolve().then(() => zap.env('X'));
		}`,
		"after the async function settled": `async function (zap) {
			zap.target({local: true});
			(async () => { await null; await null; zap.mask('X'); })();
		}`,
		"caught": `async function (zap) {
			zap.target({local: true});
			Promise.resolve().then(() => { try { zap.directory({id: 'x', path: '~/x'}); } catch (e) {} });
		}`,
	} {
		t.Run(name, func(t *testing.T) {
			wantError(t, body, "was called after the config's function returned")
		})
	}
}

func TestRunBeforeSettling(t *testing.T) {
	// A call made while the async function is still pending counts, even
	// from a promise it didn't await, as long as it comes first.
	d, err := eval(t, `async function (zap) {
		Promise.resolve().then(() => zap.target({local: true}));
		await null;
		await null;
	}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Target.Local {
		t.Fatal("the target was dropped")
	}
}

func TestRunGettersAndProxiesDontRun(t *testing.T) {
	var console bytes.Buffer
	_, err := eval(t, `function (zap) {
		zap.target({local: true});
		const trap = new Proxy({id: 'p', path: '~/p'}, { ownKeys() { console.log('ownKeys ran'); return []; }, get() { console.log('get ran'); } });
		try { zap.directory(trap); } catch (e) {}
		try { zap.directory({id: 'g', get path() { console.log('getter ran'); return '~/g'; }}); } catch (e) {}
	}`, Options{Console: &console})
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "a Proxy is not plain data") {
		t.Fatalf("err = %v, want the proxy refused", err)
	}
	if console.Len() != 0 {
		t.Fatalf("the config's code ran during conversion: %q", console.String())
	}
}

func TestRunPlainData(t *testing.T) {
	for _, c := range []struct{ arg, want string }{
		{`{id: 'x', path: '~/x', mode: '\uD800'}`, `mode: holds a lone surrogate (\uD800 at 0)`},
		{`{id: 'x', path: '~/x', owner: Symbol('o')}`, `owner: a Symbol is not plain data`},
		{`{id: 'x', path: '~/x', owner: 10n}`, `owner: a BigInt is not plain data`},
		{`{id: 'x', path: '~/x', mode: Infinity}`, `mode: Infinity is not a number`},
		{`{id: 'x', path: '~/x', $env: 'X'}`, `$env: the key $env is reserved`},
		{`{id: 'x', path: '~/x', group: new String('g')}`, `group: a String object is not plain data`},
		{`{id: 'x', path: ['~/x']}`, `path: want a string, not an array`},
		{`Object.assign(Object.create({inherited: 1}), {id: 'x', path: '~/x'})`, `an instance of`},
		{`{id: 'x', path: '~/x', depends_on: [,'a']}`, `depends_on[0]: an undefined array item (or a hole)`},
		{`(() => { let o = {id: 'x', path: '~/x'}; let v = o; for (let i = 0; i < 100; i++) { v.n = {}; v = v.n; } return o; })()`, `nests more than 64 deep`},
		{`'~/x'`, `want an object, not a string`},
	} {
		wantError(t, `function (zap) { zap.target({local: true}); zap.directory(`+c.arg+`); }`, c.want)
	}
}

func TestRunNegativeZero(t *testing.T) {
	d, err := eval(t, `function (zap) { zap.target({local: true}); zap.file({id: 'f', path: '/f', content: {type: 'template', template: '{{n}}', vars: {n: -0}}}); }`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(declaration.BodyOf[*declaration.File](&d.Resources[0]).Content.Vars["n"].JSON); got != "0" {
		t.Fatalf("vars.n = %s", got)
	}
}

func TestRunClosedGlobals(t *testing.T) {
	for expr, want := range map[string]string{
		`Date.now()`:                      "Date.now() reads the clock",
		`new Date()`:                      "new Date() with no argument reads the clock",
		`Date()`:                          "Date() reads the clock",
		`new (new Date(0).constructor)()`: "reads the clock",
		`Math.random()`:                   "Math.random() is not available",
		`performance.now()`:               "performance.now() is not available",
		`eval('1')`:                       "eval() is not available",
		`Function('return 1')()`:          "new Function() is not available",
		`(function*(){}).constructor('')`: "new GeneratorFunction() is not available",
		`new RegExp('\\p{L}', 'u')`:       "Unicode property escape",
		`RegExp('\\P{L}', 'v')`:           "Unicode property escape",
	} {
		wantError(t, `function (zap) { zap.target({local: true}); `+expr+`; }`, want)
	}
}

func TestRunOpenGlobals(t *testing.T) {
	var console bytes.Buffer
	_, err := eval(t, `function (zap) {
		zap.target({local: true});
		console.log(new Date(2026, 0, 1).getHours(), new Date(2026, 0, 1).toISOString(),
			(() => 1) instanceof Function, /a/ instanceof RegExp, new RegExp('a', 'g').flags,
			'a-b'.split(/-/).length, /\p{L}/.test('p{L}'), typeof GoError, typeof performance);
	}`, Options{Console: &console})
	if err != nil {
		t.Fatal(err)
	}
	want := "0 2026-01-01T00:00:00.000Z true true g 2 true undefined object\n"
	if console.String() != want {
		t.Fatalf("console = %q, want %q", console.String(), want)
	}
}

func TestConsoleCap(t *testing.T) {
	var console bytes.Buffer
	_, err := eval(t, `function (zap) {
		zap.target({local: true});
		const line = 'x'.repeat(1000);
		for (let i = 0; i < 2000; i++) console.log(line);
	}`, Options{Console: &console})
	if err != nil {
		t.Fatal(err)
	}
	if console.Len() > MaxConsole+100 || !strings.HasSuffix(console.String(), "dropped)\n") {
		t.Fatalf("console wrote %d bytes ending %q", console.Len(), console.String()[console.Len()-40:])
	}
}

func TestRunNoDefault(t *testing.T) {
	_, err := Run(context.Background(), Script{Name: "t.js", Code: "var m = {};"}, Options{Export: "m"})
	var e *Error
	if !errors.As(err, &e) || e.Msg != "the config has no default export" {
		t.Fatalf("err = %v", err)
	}
}

func TestNumberLocale(t *testing.T) {
	var console bytes.Buffer
	_, err := eval(t, `function (zap) {
		zap.target({local: true});
		console.log([1234.5, 0, -0, 1e21, -1234567.8912, 0.0005, 999.9996, NaN, -Infinity, 12].map((n) => n.toLocaleString()).join(' '));
		console.log([1000, 2.5].toLocaleString());
	}`, Options{Console: &console})
	if err != nil {
		t.Fatal(err)
	}
	want := "1,234.5 0 -0 1,000,000,000,000,000,000,000 -1,234,567.891 0.001 1,000 NaN -\u221e 12\n1,000,2.5\n"
	if console.String() != want {
		t.Fatalf("console = %q, want %q", console.String(), want)
	}
}

// TestWeakRefInert: WeakRef and FinalizationRegistry exist, shaped as the
// standard ones, and are inert: a weak reference never clears and a
// cleanup callback never runs, even after every promise job has.
func TestWeakRefInert(t *testing.T) {
	var console bytes.Buffer
	_, err := eval(t, `async function (zap) {
		zap.target({local: true});
		const throws = (f) => { try { f(); return 'no'; } catch (e) { return e instanceof TypeError ? 'TypeError' : String(e); } };
		const o = {};
		const r = new WeakRef(o);
		class Tagged extends WeakRef { tag() { return 'tagged'; } }
		const s = Symbol('s');
		console.log(typeof WeakRef, WeakRef.name, WeakRef.length, r.deref() === o, r instanceof WeakRef,
			Object.prototype.toString.call(r), WeakRef.prototype.constructor === WeakRef,
			Object.keys(WeakRef.prototype).length, Object.keys(globalThis).includes('WeakRef'),
			new Tagged(o).deref() === o, new Tagged(o).tag(), new WeakRef(s).deref() === s,
			typeof new WeakRef(() => 1).deref());
		console.log(throws(() => new WeakRef(1)), throws(() => new WeakRef(null)), throws(() => new WeakRef()),
			throws(() => new WeakRef(Symbol.for('registered'))), throws(() => WeakRef(o)),
			throws(() => WeakRef.prototype.deref.call(o)));
		let cleaned = 0;
		const fr = new FinalizationRegistry(() => { cleaned++; });
		const token = {};
		console.log(typeof FinalizationRegistry, FinalizationRegistry.length, FinalizationRegistry.prototype.register.length,
			FinalizationRegistry.prototype.unregister.length, Object.prototype.toString.call(fr),
			fr.register(o, 'held'), fr.register({}, 'held', token), fr.register(r, undefined, s),
			fr.unregister(token), fr.unregister(token), fr.unregister(s), fr.unregister({}));
		console.log(throws(() => new FinalizationRegistry()), throws(() => new FinalizationRegistry({})),
			throws(() => FinalizationRegistry(() => {})), throws(() => fr.register(1, 'held')),
			throws(() => fr.register(o, o)), throws(() => fr.register(o, 'held', 'token')),
			throws(() => fr.unregister(1)), throws(() => fr.register.call({}, o, 'held')));
		for (let i = 0; i < 100; i++) { fr.register({}, i); await null; }
		console.log(cleaned, r.deref() === o);
	}`, Options{Console: &console})
	if err != nil {
		t.Fatal(err)
	}
	want := "function WeakRef 1 true true [object WeakRef] true 0 false true tagged true function\n" +
		"TypeError TypeError TypeError TypeError TypeError TypeError\n" +
		"function 1 2 1 [object FinalizationRegistry] undefined undefined undefined true false true false\n" +
		"TypeError TypeError TypeError TypeError TypeError TypeError TypeError TypeError\n" +
		"0 true\n"
	if console.String() != want {
		t.Fatalf("console =\n%s\nwant\n%s", console.String(), want)
	}
}
