package evaluate

import (
	"time"

	"github.com/dop251/goja"
)

// preludeName is the file name of the evaluator's own script, left out of
// positions reported to the user.
const preludeName = "<zap-eval>"

// prelude closes what the interpreter would otherwise let a config read or
// run, and returns the function that calls the config's default export.
// It runs before any of the config's code.
const prelude = `(function (global) {
  'use strict';
  const TE = TypeError;
  const defineProperty = Object.defineProperty;
  const getPrototypeOf = Object.getPrototypeOf;
  const hide = (obj, name, value) =>
    defineProperty(obj, name, { value, writable: true, configurable: true, enumerable: false });

  // Code generation from strings is off: eval, new Function and the
  // constructors reached through a function's prototype throw. Each thrower
  // is an ordinary function so that new gets this message, and it keeps the
  // prototype so that instanceof still works.
  const noCode = (what) =>
    what + ' is not available in a config: code generation from strings is off; write the code out';
  const fnThrower = function Function() { throw new TE(noCode('new Function()')); };
  fnThrower.prototype = Function.prototype;
  hide(Function.prototype, 'constructor', fnThrower);
  hide(global, 'Function', fnThrower);
  hide(global, 'eval', ({ eval() { throw new TE(noCode('eval()')); } }).eval);
  for (const [fn, name] of [[function* () {}, 'GeneratorFunction'], [async function () {}, 'AsyncFunction']]) {
    const proto = getPrototypeOf(fn);
    const thrower = function () { throw new TE(noCode('new ' + name + '()')); };
    thrower.prototype = proto;
    hide(proto, 'constructor', thrower);
  }

  // \p{...} escapes parse but never match in this interpreter: refuse them
  // rather than let a test silently fail. The bundler turns such a literal
  // into a RegExp call.
  const OrigRegExp = RegExp;
  const Reflect_ = Reflect;
  const checkPattern = (pattern, flags) => {
    const src = typeof pattern === 'string' ? pattern : (pattern instanceof OrigRegExp ? pattern.source : '');
    const f = flags === undefined ? (pattern instanceof OrigRegExp ? pattern.flags : '') : String(flags);
    if ((f.includes('u') || f.includes('v')) && /\\[pP]\{/.test(src)) {
      throw new SyntaxError('a \\p{...} Unicode property escape is not supported by the evaluator: write the character class out');
    }
  };
  const regExp = function RegExp(pattern, flags) {
    checkPattern(pattern, flags);
    return new.target === undefined
      ? OrigRegExp(pattern, flags)
      : Reflect_.construct(OrigRegExp, [pattern, flags], new.target);
  };
  regExp.prototype = OrigRegExp.prototype;
  hide(OrigRegExp.prototype, 'constructor', regExp);
  hide(global, 'RegExp', regExp);

  // Formatting with no locale given is en-US's: grouped thousands and at
  // most three fraction digits, rounded half away from zero (the
  // interpreter has no Intl and would print the plain number).
  hide(Number.prototype, 'toLocaleString', function toLocaleString() {
    const x = Number.prototype.valueOf.call(this);
    if (x !== x) return 'NaN';
    if (x === Infinity || x === -Infinity) return (x < 0 ? '-' : '') + '\u221e';
    const negative = x < 0 || (x === 0 && 1 / x < 0);
    const abs = Math.abs(x);
    const fixed = abs < 1e21 ? abs.toFixed(3) : BigInt(abs).toString() + '.000';
    const dot = fixed.indexOf('.');
    const whole = fixed.slice(0, dot).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    const frac = fixed.slice(dot + 1).replace(/0+$/, '');
    return (negative ? '-' : '') + whole + (frac ? '.' + frac : '');
  });

  // The clock: Date.now(), new Date() and Date() throw from the time
  // source; performance.now() throws here.
  hide(global, 'performance', Object.freeze({
    now() {
      throw new TE('performance.now() is not available in a config: the clock would make the declaration differ from run to run; write the value as a literal, or reference it with zap.env(\'NAME\')');
    },
  }));
  delete global.GoError;

  // WeakRef and FinalizationRegistry are inert: the interpreter has neither,
  // and a collection the config could observe would make the declaration
  // depend on when the garbage collector ran. A weak reference holds its
  // target and never clears; a registry checks its arguments as the
  // standard ones do, remembers the unregister tokens, and never calls its
  // cleanup callback.
  const WeakMap_ = WeakMap;
  const Set_ = Set;
  const keyFor = Symbol.keyFor;
  const weakable = (v) =>
    (typeof v === 'object' && v !== null) || typeof v === 'function' ||
    (typeof v === 'symbol' && keyFor(v) === undefined);
  const targets = new WeakMap_();
  const WeakRef = class WeakRef {
    constructor(target) {
      if (!weakable(target)) throw new TE('WeakRef: target must be an object or a symbol not in the registry');
      targets.set(this, target);
    }
    deref() {
      if (!targets.has(this)) throw new TE('WeakRef.prototype.deref called on something that is not a WeakRef');
      return targets.get(this);
    }
  };
  defineProperty(WeakRef.prototype, Symbol.toStringTag, { value: 'WeakRef', configurable: true });
  hide(global, 'WeakRef', WeakRef);
  const tokens = new WeakMap_();
  const registry = (self, method) => {
    if (!tokens.has(self)) throw new TE('FinalizationRegistry.prototype.' + method + ' called on something that is not a FinalizationRegistry');
    return tokens.get(self);
  };
  const FinalizationRegistry = class FinalizationRegistry {
    constructor(cleanupCallback) {
      if (typeof cleanupCallback !== 'function') throw new TE('FinalizationRegistry: the cleanup callback must be a function');
      tokens.set(this, new Set_());
    }
    register(target, heldValue, unregisterToken = undefined) {
      const held = registry(this, 'register');
      if (!weakable(target)) throw new TE('FinalizationRegistry.prototype.register: the target must be an object or a symbol not in the registry');
      if (target === heldValue) throw new TE('FinalizationRegistry.prototype.register: the target and the held value must not be the same');
      if (unregisterToken !== undefined) {
        if (!weakable(unregisterToken)) throw new TE('FinalizationRegistry.prototype.register: the unregister token must be an object, a symbol not in the registry, or undefined');
        held.add(unregisterToken);
      }
    }
    unregister(unregisterToken) {
      const held = registry(this, 'unregister');
      if (!weakable(unregisterToken)) throw new TE('FinalizationRegistry.prototype.unregister: the unregister token must be an object or a symbol not in the registry');
      return held.delete(unregisterToken);
    }
  };
  defineProperty(FinalizationRegistry.prototype, Symbol.toStringTag, { value: 'FinalizationRegistry', configurable: true });
  hide(global, 'FinalizationRegistry', FinalizationRegistry);

  // call runs the config's default export and tells Go, synchronously,
  // that it returned and what it returned, before any promise job runs.
  return function call(f, zap, returned) {
    returned(f(zap));
  };
})`

func clockMessage(rt *goja.Runtime) string {
	what := "new Date() with no argument"
	if frames := rt.CaptureCallStack(1, nil); len(frames) > 0 && frames[0].SrcName() == "<native>" {
		switch frames[0].FuncName() {
		case "now":
			what = "Date.now()"
		case "Date":
			what = "Date()"
		}
	}
	return what + " reads the clock, which a config can't: it would make the declaration differ from run to run; write the time as a literal, such as new Date('2026-01-01T00:00:00Z'), or reference it with zap.env('NAME')"
}

const randomMessage = "Math.random() is not available in a config: randomness would make the declaration differ from run to run; write the value as a literal, or reference it with zap.env('NAME')"

// closeClock makes the clock and the random source throw.
func closeClock(rt *goja.Runtime) {
	rt.SetTimeSource(func() time.Time { panic(rt.NewTypeError(clockMessage(rt))) })
	rt.SetRandSource(func() float64 { panic(rt.NewTypeError(randomMessage)) })
}
