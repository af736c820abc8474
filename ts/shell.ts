// Shell quoting for recipes and configs: every value a shell reads is one
// single-quoted word, and a user sudo -u runs a command as is written out.

import { has_ref } from './env_ref.ts';

/**
 * `value` as one single-quoted shell word: `'` + value + `'`, each `'` inside
 * written `'\''`. A POSIX shell reads every byte between single quotes
 * literally, so the word stands for exactly `value` whatever it holds (`$`,
 * backquotes, blanks, line breaks), and can't change what a command runs.
 *
 * `value` may be, or hold, a reference (zap.env or env_ref): the reference
 * stays inside the quotes, and Zap refuses, before anything runs, a value
 * resolved into a command that holds a `'` (security.md). A NUL, which no
 * shell word can carry, is refused.
 */
export function single_quote(value: string): string {
	if (typeof value !== 'string') {
		throw new TypeError(`single_quote: takes a string, not ${value === null ? 'null' : typeof value}`);
	}
	if (value.includes('\0')) {
		throw new Error('single_quote: the value holds a NUL, which no shell word can carry');
	}
	return "'" + value.split("'").join("'\\''") + "'";
}

/**
 * The words that run a command as `user` through sudo:
 * `sudo -n -H -u '<user>' --`, to be followed by the command. `-n` makes a
 * sudo that would ask for a password fail instead (a plan's commands run
 * with no terminal); `-H` sets HOME to the user's own.
 *
 * sudo -u reads a name starting with `#` as a uid (`#0` is root), so the
 * user must be written out in the config. Refused, naming the reason:
 * - an empty name, or one that is blank;
 * - a name starting with `#`;
 * - a reference (zap.env or env_ref), or a name holding one: its value isn't
 *   known until Zap acts, so it can't be checked here;
 * - a name starting with `-`, or holding a blank, a control character, a
 *   `:` or a `/`, none of which an account name holds.
 */
export function sudo_as_user(user: string): string {
	return `sudo -n -H -u ${single_quote(checked_user('sudo_as_user', user))} --`;
}

/**
 * `user` if it is a written-out account name, as sudo_as_user and the
 * recipes that run a command as a declared user require; else an Error
 * naming `label` and the reason.
 */
export function checked_user(label: string, user: string): string {
	if (typeof user !== 'string') {
		throw new TypeError(`${label}: the user is a string, not ${user === null ? 'null' : typeof user}`);
	}
	if (has_ref(user)) {
		throw new Error(`${label}: the user is a reference, whose value can't be checked before Zap acts (sudo -u reads #N as a uid): write the account name out`);
	}
	if (user.trim() === '') {
		throw new Error(`${label}: the user is empty`);
	}
	if (user.startsWith('#')) {
		throw new Error(`${label}: the user ${JSON.stringify(user)} starts with #, which sudo -u reads as a uid (#0 is root): write the account name`);
	}
	if (user.startsWith('-')) {
		throw new Error(`${label}: the user ${JSON.stringify(user)} starts with -, which no account name does`);
	}
	if (/[\s\x00-\x1f\x7f:/]/.test(user)) {
		throw new Error(`${label}: the user ${JSON.stringify(user)} holds a blank, a control character, a : or a /, which no account name does`);
	}
	return user;
}
