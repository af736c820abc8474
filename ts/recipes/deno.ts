// Deno, installed into a service user's home from its GitHub release. The
// binary belongs to that user, who could replace it, so everything that runs
// it (the check and the closing --version) runs as that user, never as the
// connecting user, who has sudo; so do the download and the unpacking.

import type { ScriptSpec } from '../types.ts';
import { single_quote, sudo_as_user } from '../shell.ts';

/** The options of deno_install. */
export interface DenoInstallOptions {
	/** The account Deno is installed for and runs as, written out (not a
	 * reference): it is what sudo -u runs every command as. */
	user: string;
	/** The release, without the v: '2.1.4'. Takes a reference. */
	version: string;
	/** The release asset's target (default 'x86_64-unknown-linux-gnu', a
	 * glibc build: a Debian default; aarch64 hosts pass
	 * 'aarch64-unknown-linux-gnu', and an Alpine host needs glibc
	 * compatibility, gcompat, to run either). Takes a reference. */
	target?: string;
	/** The directory the deno binary goes in (default
	 * /home/<user>/.deno/bin). Takes a reference. */
	bin_dir?: string;
	/** The release asset's SHA-256, 64 hex digits: when given, a download
	 * whose digest differs is refused before it is unpacked. Takes a
	 * reference. */
	sha256?: string;
	/** The id of the script resource (default 'deno'). */
	id?: string;
	/** Ids the install applies after: the user's own resource, and the
	 * packages that give curl, unzip and sha256sum. */
	depends_on?: string[];
}

/**
 * A script that installs Deno `version` for `user` when the binary at
 * `<bin_dir>/deno` is missing or reports another version. The check and the
 * run are each a series of `sudo -n -H -u '<user>' --` commands, every
 * value in them single-quoted; the download goes to a private temporary
 * directory of the user's, the binary is put in place with install, and the
 * run ends with `deno --version` as the user. The user is refused as
 * sudo_as_user refuses it (empty, starting with #, a reference...).
 */
export function deno_install(options: DenoInstallOptions): ScriptSpec {
	const as_user = sudo_as_user(options.user);
	const target = options.target ?? 'x86_64-unknown-linux-gnu';
	const bin_dir = options.bin_dir ?? `/home/${options.user}/.deno/bin`;
	const deno = single_quote(`${bin_dir}/deno`);
	const url = single_quote(`https://github.com/denoland/deno/releases/download/v${options.version}/deno-${target}.zip`);
	const check = `${as_user} ${deno} --version | grep -qF ${single_quote(`deno ${options.version} `)}`;
	const steps = [
		'set -e',
		`tmp=$(${as_user} mktemp -d)`,
		`${as_user} curl -fsSL --proto '=https' -o "$tmp/deno.zip" ${url}`,
		...(options.sha256 === undefined
			? []
			: [`printf '%s  %s\\n' ${single_quote(options.sha256)} "$tmp/deno.zip" | ${as_user} sha256sum -c -`]),
		`${as_user} unzip -q -o "$tmp/deno.zip" -d "$tmp"`,
		`${as_user} mkdir -p ${single_quote(bin_dir)}`,
		`${as_user} install -m 755 "$tmp/deno" ${deno}`,
		`${as_user} rm -rf "$tmp"`,
		`${as_user} ${deno} --version`,
	];
	const spec: ScriptSpec = { id: options.id ?? 'deno', check, run: steps.join('\n') };
	if (options.depends_on !== undefined) {
		spec.depends_on = [...options.depends_on];
	}
	return spec;
}
