// env_ref makes a reference without the builder, for a recipe or a module
// that declares a value before it has the zap object in hand.

import type { Ref } from './types.ts';

/** The characters a reference's text form is wrapped in. */
const OPEN = '\uFDD0';
const CLOSE = '\uFDD1';

/** The hook zap-eval installs so a name env_ref gives counts as issued, as
 * one zap.env gives does (a marker nobody issued reads as damaged). */
const ISSUE = Symbol.for('zap.env_ref');

/**
 * A reference to the operator's environment variable `name`: the same string
 * `zap.env(name)` returns, U+FDD0 name U+FDD1. Zap resolves it when it acts;
 * the config only passes it on. Interpolate or concatenate it; slicing it or
 * changing its case damages it, and the evaluation fails.
 */
export function env_ref(name: string): Ref {
	const issue = (globalThis as unknown as Record<symbol, unknown>)[ISSUE];
	if (typeof issue === 'function') {
		return issue(name) as Ref;
	}
	return OPEN + name + CLOSE;
}

/**
 * Whether `value` is or holds a reference (from zap.env or env_ref). A recipe
 * may check the form of a value written out, never of a reference, whose
 * value only exists when Zap acts: it asks this first.
 */
export function has_ref(value: string): boolean {
	return value.includes(OPEN);
}
