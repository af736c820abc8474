// Recipes for servers built on fuz_app: the environment file its server
// reads (fuz_app_env_base), the proxies it trusts for the client's address
// (fuz_app_trusted_proxies, lines for the same file), and the one-shot token
// its first administrator bootstraps with (fuz_app_bootstrap_token).
//
// The env file has two readers: systemd's EnvironmentFile=, and on Alpine
// the reader hardened_openrc_service carries. Every value is written
// single-quoted, which both read the same way as long as the value holds no
// ' and no line break; so a value written out that holds one is refused
// here, and a reference is held to the template kind quoted, which refuses
// those (and ", \, $ and `) when it resolves.

import type { FileSpec, JsonValue, ScriptSpec, TemplateKind } from '../types.ts';
import { has_ref } from '../env_ref.ts';
import { single_quote, sudo_as_user } from '../shell.ts';

/** Lines for the env file beyond the base's, each `NAME='{{var}}'` or a
 * literal line, with their variables and kinds: what `extra` takes, and
 * what fuz_app_trusted_proxies returns. */
export interface EnvLines {
	/** The lines, without line breaks. */
	lines: string[];
	/** The value of each {{name}} the lines hold. */
	vars?: Record<string, JsonValue>;
	/** The kind of each variable. */
	kinds?: Record<string, TemplateKind>;
}

/** The options of fuz_app_env_base. Every value takes a reference unless
 * said; a value written out may not hold a ' or a line break. */
export interface FuzAppEnvBaseOptions {
	/** Where the env file goes, such as /srv/app/shared/.env. Takes a
	 * reference. */
	path: string;
	/** The account the server runs as: the file's owner, mode 600, so it
	 * and root alone read the secrets in it. Written out. */
	owner: string;
	/** The file's group (default: the owner's name). */
	group?: string;
	/** The id of the file resource (default 'fuz-app-env'). */
	id?: string;
	/** NODE_ENV (default 'production'). */
	node_env?: 'production' | 'development';
	/** PORT, the port the server listens on (default 4040). Keep the nginx
	 * site's upstream port on the same constant. */
	port?: number;
	/** HOST, the address the server binds (default '127.0.0.1': only nginx
	 * on the same host reaches it). */
	host?: string;
	/** DATABASE_URL (postgres://, file:// or memory://), typically a masked
	 * reference. */
	database_url: string;
	/** SECRET_COOKIE_KEYS, the cookie signing keys (32 characters at least;
	 * several separated by __ for rotation), typically a masked
	 * reference. */
	secret_cookie_keys: string;
	/** ALLOWED_ORIGINS, the comma-separated origin patterns the API
	 * accepts, such as a reference to `https://${DOMAIN}`. */
	allowed_origins: string;
	/** PUBLIC_API_URL (left out: the server's default, /api). */
	public_api_url?: string;
	/** PUBLIC_WEBSOCKET_URL (left out: none). */
	public_websocket_url?: string;
	/** PUBLIC_CONTACT_EMAIL (left out: none). */
	public_contact_email?: string;
	/** BOOTSTRAP_TOKEN_PATH: pass fuz_app_bootstrap_token's `path`, so the
	 * server reads the token where the script wrote it. Left out, the
	 * server has no bootstrap. */
	bootstrap_token_path?: string;
	/** SMTP_HOST, SMTP_USER and SMTP_PASSWORD (left out: no mail). */
	smtp?: { host: string; user: string; password: string };
	/** More lines, each block's variables and kinds with it, such as
	 * fuz_app_trusted_proxies(...). A block may not set a variable of the
	 * base's, nor assign one of the base's names. */
	extra?: EnvLines[];
	/** Ids of services restarted when the file changes (the app's
	 * service). */
	triggers?: string[];
	/** Ids the file applies after (the directory it goes in, the owner's
	 * user). */
	depends_on?: string[];
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Refuses a value written out that the env file's two readers would read
 * differently. A reference is left to its kind. */
function env_value(label: string, value: string): string {
	if (typeof value !== 'string') {
		throw new Error(`${label}: takes a string, not ${typeof value}`);
	}
	if (!has_ref(value) && /['\r\n]/.test(value)) {
		throw new Error(`${label}: holds a ' or a line break, which systemd's EnvironmentFile= and the OpenRC reader read differently`);
	}
	return value;
}

/** The block of lines for `pairs`, NAME='{{name_lower}}', each variable of
 * kind quoted. */
function env_block(label: string, pairs: [string, string | undefined][]): Required<EnvLines> {
	const block: Required<EnvLines> = { lines: [], vars: {}, kinds: {} };
	for (const [name, value] of pairs) {
		if (value === undefined) {
			continue;
		}
		if (!ENV_NAME.test(name) || name.startsWith('_zap_')) {
			throw new Error(`${label}: ${JSON.stringify(name)} is not an environment variable name`);
		}
		const v = name.toLowerCase();
		block.lines.push(`${name}='{{${v}}}'`);
		block.vars[v] = env_value(`${label}: ${name}`, value);
		block.kinds[v] = 'quoted';
	}
	return block;
}

/**
 * fuz_app's base server environment as a file resource: a template whose
 * every value is a variable of kind quoted on a NAME='{{name}}' line, owned
 * by `owner`, mode 600. The whole content carries its kinds: used as
 * returned, a value that would break a line's quoting is refused when it
 * resolves; rebuilding the content or overriding kinds drops that. Refused,
 * naming the option: a value written out that holds a ' or a line break, an
 * extra line that breaks lines itself, and an extra block that sets one of
 * the base's variables or names.
 */
export function fuz_app_env_base(options: FuzAppEnvBaseOptions): FileSpec {
	const label = 'fuz_app_env_base';
	const base = env_block(label, [
		['NODE_ENV', options.node_env ?? 'production'],
		['PORT', String(options.port ?? 4040)],
		['HOST', options.host ?? '127.0.0.1'],
		['DATABASE_URL', options.database_url],
		['SECRET_COOKIE_KEYS', options.secret_cookie_keys],
		['ALLOWED_ORIGINS', options.allowed_origins],
		['PUBLIC_API_URL', options.public_api_url],
		['PUBLIC_WEBSOCKET_URL', options.public_websocket_url],
		['PUBLIC_CONTACT_EMAIL', options.public_contact_email],
		['BOOTSTRAP_TOKEN_PATH', options.bootstrap_token_path],
		['SMTP_HOST', options.smtp?.host],
		['SMTP_USER', options.smtp?.user],
		['SMTP_PASSWORD', options.smtp?.password],
	]);
	const lines = ['# Written by Zap (fuz_app_env_base).', ...base.lines];
	const vars: Record<string, JsonValue> = { ...base.vars };
	const kinds: Record<string, TemplateKind> = { ...base.kinds };
	const base_names = base.lines.map((l) => l.slice(0, l.indexOf('=')));
	(options.extra ?? []).forEach((block, b) => {
		for (const line of block.lines) {
			if (/[\r\n]/.test(line)) {
				throw new Error(`${label}: extra[${b}]: a line holds a line break: give each line on its own`);
			}
			const name = line.split('=', 1)[0] ?? '';
			if (line.includes('=') && base_names.includes(name.trim())) {
				throw new Error(`${label}: extra[${b}]: ${name.trim()} is the base's: set it through its option`);
			}
			lines.push(line);
		}
		for (const [key, value] of Object.entries(block.vars ?? {})) {
			if (key in base.vars || key in vars) {
				throw new Error(`${label}: extra[${b}]: the variable ${key} is already set (the base's or another block's)`);
			}
			vars[key] = value;
		}
		for (const [key, kind] of Object.entries(block.kinds ?? {})) {
			if (key in base.kinds) {
				throw new Error(`${label}: extra[${b}]: the kind of ${key} is the base's`);
			}
			kinds[key] = kind;
		}
	});
	const spec: FileSpec = {
		id: options.id ?? 'fuz-app-env',
		path: options.path,
		content: { type: 'template', template: lines.join('\n') + '\n', vars, kinds },
		mode: '600',
		owner: options.owner,
		group: options.group ?? options.owner,
	};
	if (options.triggers !== undefined) {
		spec.triggers = [...options.triggers];
	}
	if (options.depends_on !== undefined) {
		spec.depends_on = [...options.depends_on];
	}
	return spec;
}

/** The options of fuz_app_trusted_proxies. */
export interface FuzAppTrustedProxiesOptions {
	/** The proxies' addresses or CIDR ranges (default ['127.0.0.1', '::1'],
	 * nginx on the same host). Each takes a reference. */
	proxies?: string[];
	/** The variable's name (default 'TRUSTED_PROXIES'); the app reads it
	 * and passes the list to create_app_server's trusted_proxies. */
	name?: string;
}

/**
 * The env file line listing the proxies whose X-Forwarded-For fuz_app
 * trusts, comma-separated and single-quoted, of kind quoted: a block for
 * fuz_app_env_base's extra. A proxy written out holding a ', a , or a line
 * break is refused.
 */
export function fuz_app_trusted_proxies(options: FuzAppTrustedProxiesOptions = {}): EnvLines {
	const proxies = options.proxies ?? ['127.0.0.1', '::1'];
	if (proxies.length === 0) {
		throw new Error('fuz_app_trusted_proxies: proxies: at least one');
	}
	proxies.forEach((p, i) => {
		env_value(`fuz_app_trusted_proxies: proxies[${i}]`, p);
		if (!has_ref(p) && p.includes(',')) {
			throw new Error(`fuz_app_trusted_proxies: proxies[${i}]: holds a , which separates the list`);
		}
	});
	return env_block('fuz_app_trusted_proxies', [[options.name ?? 'TRUSTED_PROXIES', proxies.join(',')]]);
}

/** The options of fuz_app_bootstrap_token. */
export interface FuzAppBootstrapTokenOptions {
	/** The account the server runs as, written out: the token file is
	 * made as that user, mode 600, and the server deletes it once used, so
	 * it must be able to write the directory. */
	user: string;
	/** The token file, such as /srv/app/shared/bootstrap_token. Takes a
	 * reference. Pass the same value to fuz_app_env_base's
	 * bootstrap_token_path (use this recipe's returned `path`). */
	path: string;
	/** The id of the script resource (default 'fuz-app-bootstrap-token'). */
	id?: string;
	/** Ids the script applies after (the directory the file goes in). */
	depends_on?: string[];
}

/** What fuz_app_bootstrap_token returns. */
export interface FuzAppBootstrapToken {
	/** The script that makes the token: `zap.script(token.script)`. */
	script: ScriptSpec;
	/** The token file's path, for fuz_app_env_base's
	 * bootstrap_token_path. */
	path: string;
}

/**
 * A script that writes a fresh random token (32 bytes from /dev/urandom,
 * base64) to `path` once, as `user`, mode 600, and a `<path>.issued` marker
 * beside it. The server deletes the token when the first administrator has
 * used it; the marker keeps the check passing afterwards, so the token is
 * never made again. The token never reaches a command's arguments or Zap's
 * output: read it on the host with `sudo cat <path>`. The user is refused as
 * sudo_as_user refuses it.
 */
export function fuz_app_bootstrap_token(options: FuzAppBootstrapTokenOptions): FuzAppBootstrapToken {
	const as_user = sudo_as_user(options.user);
	const file = single_quote(options.path);
	const marker = single_quote(`${options.path}.issued`);
	const check = `sudo test -e ${file} -o -e ${marker}`;
	const run = [
		'set -e',
		`head -c 32 /dev/urandom | base64 | ${as_user} sh -c 'umask 077 && cat > "$1"' sh ${file}`,
		`${as_user} touch ${marker}`,
	].join('\n');
	const script: ScriptSpec = { id: options.id ?? 'fuz-app-bootstrap-token', check, run };
	if (options.depends_on !== undefined) {
		script.depends_on = [...options.depends_on];
	}
	return { script, path: options.path };
}
