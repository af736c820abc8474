// nginx: a site serving a static build with an optional /api proxy, behind
// the usual security headers and a per-address rate limit; the catch-all
// server that answers names no site declares; and the rate-limit zone the
// sites share. The neutral cores give file contents; the debian_* and
// alpine_* wrappers give the file resources (id included) that place them
// where each family's nginx reads them.

import { has_ref } from '../env_ref.ts';
import { placed } from '../placed.ts';
import type { FileSpec, TemplateContent, TemplateKind } from '../types.ts';

/** The name of the rate-limit zone rate_limit_zone defines and every site
 * uses: its one home, so the two can't drift apart. */
export const RATE_LIMIT_ZONE = 'zap_site';

/** The validate command of every nginx file these recipes place:
 * `sudo -n nginx -t`. A file whose write makes nginx's configuration fail
 * the test is put back, and the service it triggers is never reloaded onto
 * it. */
export const NGINX_VALIDATE = 'sudo -n nginx -t';

/** The directory the sites serve `/.well-known/acme-challenge/` from on
 * port 80: the webroot an ACME client (certbot's webroot mode) writes its
 * challenges under. */
export const ACME_WEBROOT = '/var/www/acme';

/** Where certbot keeps the certificate of a name: the sites read
 * `<dir>/<domain>/fullchain.pem` and `privkey.pem`. */
export const LETSENCRYPT_LIVE = '/etc/letsencrypt/live';

/** What every file these recipes return takes besides its own options: the
 * resource's id (each recipe has a default), the ids it applies after, and
 * the services it reloads (name the file in the nginx service's reload_on
 * instead, or here). */
export interface NginxFileOptions {
	/** The file resource's id (the recipe says its default). */
	id?: string;
	/** Ids the file applies after, such as nginx's package. */
	depends_on?: string[];
	/** Ids of services reloaded when the file changes. */
	triggers?: string[];
}

/** The options of rate_limit_zone. */
export interface RateLimitZoneOptions {
	/** The steady rate each client address may request at, as nginx writes
	 * it: a number then r/s or r/m (default '10r/s'). Takes no reference. */
	rate?: string;
	/** The zone's shared memory, such as '10m' (default '10m'; a megabyte
	 * holds some 16,000 addresses). Takes no reference. */
	size?: string;
}

/**
 * The http-context directive that defines the rate-limit zone every site
 * uses, keyed by client address:
 * `limit_req_zone $binary_remote_addr zone=zap_site:10m rate=10r/s;`.
 * Put it in a file of its own (debian_nginx_rate_limit_zone,
 * alpine_nginx_rate_limit_zone) once per host.
 */
export function rate_limit_zone(options: RateLimitZoneOptions = {}): string {
	const rate = literal('rate_limit_zone', 'rate', options.rate ?? '10r/s', /^[1-9][0-9]{0,5}r\/[sm]$/, 'a number then r/s or r/m, such as 10r/s');
	const size = literal('rate_limit_zone', 'size', options.size ?? '10m', /^[1-9][0-9]{0,5}[km]?$/, 'a size such as 10m');
	return `# Written by Zap (rate_limit_zone): the per-address request limit the sites use.\nlimit_req_zone $binary_remote_addr zone=${RATE_LIMIT_ZONE}:${size} rate=${rate};\n`;
}

/** rate_limit_zone as a file in Debian's /etc/nginx/conf.d (id default
 * 'nginx-rate-limit-zone'). */
export function debian_nginx_rate_limit_zone(options: RateLimitZoneOptions & NginxFileOptions = {}): FileSpec {
	return inline(options, 'nginx-rate-limit-zone', '/etc/nginx/conf.d/zap-rate-limit.conf', rate_limit_zone(options));
}

/** rate_limit_zone as a file in Alpine's /etc/nginx/http.d (id default
 * 'nginx-rate-limit-zone'). */
export function alpine_nginx_rate_limit_zone(options: RateLimitZoneOptions & NginxFileOptions = {}): FileSpec {
	return inline(options, 'nginx-rate-limit-zone', '/etc/nginx/http.d/zap-rate-limit.conf', rate_limit_zone(options));
}

/** The options of the catch-all server. */
export interface CatchAllOptions {
	/** Also refuse TLS handshakes on 443 for names no site declares
	 * (ssl_reject_handshake, which needs no certificate). Default true. */
	tls?: boolean;
	/** Listen on IPv6 too ([::]:80, [::]:443). Default true; turn it off on
	 * a host whose kernel has IPv6 disabled, where nginx can't bind it. */
	ipv6?: boolean;
}

/**
 * The catch-all server: the default server on port 80 (and 443), which
 * closes the connection (444) of any request whose Host no site declares,
 * so a scanner asking by address or by a stray name gets nothing, and a TLS
 * handshake for such a name is refused before any certificate is shown.
 */
export function nginx_catch_all_core(options: CatchAllOptions = {}): string {
	const tls = options.tls ?? true;
	const ipv6 = options.ipv6 ?? true;
	const lines = ['# Written by Zap (nginx catch-all): names no site declares get nothing.', 'server {'];
	lines.push('\tlisten 80 default_server;');
	if (ipv6) lines.push('\tlisten [::]:80 default_server;');
	if (tls) {
		lines.push('\tlisten 443 ssl default_server;');
		if (ipv6) lines.push('\tlisten [::]:443 ssl default_server;');
		lines.push('\tssl_reject_handshake on;');
	}
	lines.push('\tserver_name _;', '\tserver_tokens off;', '\treturn 444;', '}', '');
	return lines.join('\n');
}

/** The catch-all in place of Debian's default site: written at
 * /etc/nginx/sites-available/default, which Debian's own
 * sites-enabled/default link leads to, so the stock site's default_server
 * is gone and nothing else claims it (id default 'nginx-catch-all'). */
export function debian_nginx_catch_all(options: CatchAllOptions & NginxFileOptions = {}): FileSpec {
	return inline(options, 'nginx-catch-all', '/etc/nginx/sites-available/default', nginx_catch_all_core(options));
}

/** The catch-all in place of Alpine's default site,
 * /etc/nginx/http.d/default.conf (id default 'nginx-catch-all'). */
export function alpine_nginx_catch_all(options: CatchAllOptions & NginxFileOptions = {}): FileSpec {
	return inline(options, 'nginx-catch-all', '/etc/nginx/http.d/default.conf', nginx_catch_all_core(options));
}

/** The options every site takes (the family wrappers add none of their own
 * but `name`). */
export interface NginxSiteOptions {
	/** The site's name (server_name) and the name its certificate is under.
	 * Takes a reference: it is the template variable `domain`, held to the
	 * domain kind. */
	domain: string;
	/** More names the same site serves, on the same certificate (certbot's
	 * extra_domains). Each takes a reference, which becomes the variable
	 * `extra_domain_<i>` (domain kind); a name written out must be a DNS
	 * name. */
	extra_domains?: string[];
	/** Names answered with a permanent redirect (301) to the same path on
	 * `domain`, such as the www. name. With TLS they must be on the site's
	 * certificate too. Each takes a reference (variable
	 * `redirect_domain_<i>`, domain kind); a name written out must be a DNS
	 * name. */
	redirect_domains?: string[];
	/** The directory of the static build served at /, absolute. Takes no
	 * reference; letters, digits and . _ - / only. */
	root: string;
	/** The port of the application on 127.0.0.1 that `api_path` is
	 * proxied to; without it there is no proxy. Takes a reference: it is
	 * the template variable `port`, held to the port kind. */
	port?: number | string;
	/** The path prefix proxied to the application (default '/api/'),
	 * passed on unchanged. Letters, digits and . _ - / only, beginning and
	 * ending with /. */
	api_path?: string;
	/** Serve the site over HTTPS on 443 with the certificate under
	 * LETSENCRYPT_LIVE/<domain>, port 80 answering the ACME challenge from
	 * ACME_WEBROOT and redirecting everything else to https (default true).
	 * false serves the site on port 80 alone, the ACME challenge included:
	 * what a host needs before its certificate is issued. */
	tls?: boolean;
	/** The Content-Security-Policy header's value. The default allows only
	 * the site's own origin: `default-src 'self'; base-uri 'self';
	 * form-action 'self'; frame-ancestors 'none'; object-src 'none'`. Takes
	 * no reference; no " \ $ { } or line break. */
	csp?: string;
	/** Rate-limit every request by client address through RATE_LIMIT_ZONE
	 * (which rate_limit_zone must define on the host), letting `burst`
	 * requests above the rate through at once (default {burst: 20});
	 * requests over it are answered 429. false: no limit. */
	rate_limit?: { burst?: number } | false;
	/** The largest request body (client_max_body_size), such as '1m'
	 * (default '1m'). */
	client_max_body_size?: string;
	/** Listen on IPv6 too. Default true. */
	ipv6?: boolean;
	/** Answer a path that matches no file with /index.html (a single-page
	 * app's routes) rather than 404. Default false. */
	spa?: boolean;
}

/** The core's options: a site's, and how the family's nginx turns HTTP/2
 * on, which differs by version and so by family: 'listen' (nginx before
 * 1.25.1, as Debian 12's: `listen 443 ssl http2`) or 'directive' (`http2
 * on;`, from 1.25.1, as Alpine 3.20's). Required: no family's value is a
 * default. */
export interface NginxSiteCoreOptions extends NginxSiteOptions {
	http2: 'listen' | 'directive';
}

const DEFAULT_CSP = "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; object-src 'none'";

/**
 * A site's whole template content: the server for `domain` (and
 * extra_domains), the redirect server for redirect_domains, and with TLS the
 * port-80 server that answers the ACME challenge and redirects the rest.
 * Every response carries the security headers: Content-Security-Policy,
 * X-Content-Type-Options nosniff, X-Frame-Options DENY, Referrer-Policy
 * strict-origin-when-cross-origin, Permissions-Policy denying camera,
 * microphone and geolocation, Cross-Origin-Opener-Policy same-origin, and
 * with TLS Strict-Transport-Security (two years, subdomains included);
 * server_tokens is off.
 *
 * The variables are the recipe's own: `domain`, `port` (with a proxy), and
 * `extra_domain_<i>` / `redirect_domain_<i>` for each of those given as a
 * reference, each with its kind. Pass the content whole: overriding its
 * kinds or rebuilding it drops the checks that keep a value inside its
 * directive.
 */
export function nginx_site_core(options: NginxSiteCoreOptions): TemplateContent {
	const label = 'nginx_site_core';
	const o = site_options(label, options);
	const vars: Record<string, string | number> = { domain: options.domain };
	const kinds: Record<string, TemplateKind> = { domain: 'domain' };
	const names = (list: string[] | undefined, prefix: string): string[] =>
		(list ?? []).map((name, i) => {
			if (typeof name !== 'string') throw new TypeError(`${label}: ${prefix}s[${i}] is a string, not ${typeof name}`);
			if (!has_ref(name)) return domain_literal(label, `${prefix}s[${i}]`, name);
			vars[`${prefix}_${i}`] = name;
			kinds[`${prefix}_${i}`] = 'domain';
			return `{{${prefix}_${i}}}`;
		});
	const served = ['{{domain}}', ...names(options.extra_domains, 'extra_domain')];
	const redirected = names(options.redirect_domains, 'redirect_domain');
	if (options.port !== undefined) {
		vars.port = options.port;
		kinds.port = 'port';
	}
	const scheme = o.tls ? 'https' : 'http';
	const out = ['# Written by Zap (nginx_site_core). Edit the config, not this file.'];
	if (o.tls) {
		out.push(...server([...served, ...redirected], listen80(o.ipv6), [
			...acme(),
			'\tlocation / {',
			'\t\treturn 301 https://$host$request_uri;',
			'\t}',
		]));
	}
	if (redirected.length > 0) {
		out.push(...server(redirected, o.tls ? listen443(o) : listen80(o.ipv6), [
			...(o.tls ? tls_lines() : acme()),
			'\tlocation / {',
			`\t\treturn 301 ${scheme}://{{domain}}$request_uri;`,
			'\t}',
		]));
	}
	out.push(...server(served, o.tls ? listen443(o) : listen80(o.ipv6), site_body(o)));
	return { type: 'template', template: out.join('\n') + '\n', vars, kinds };
}

/** A site for Debian's nginx: /etc/nginx/sites-enabled/<name>, validated by
 * NGINX_VALIDATE (id default 'nginx-site-<name>'). `name` is a plain file
 * name (letters, digits, . _ -). */
export function debian_nginx_site(options: NginxSiteOptions & NginxFileOptions & { name: string }): FileSpec {
	const { name, id, depends_on, triggers, ...site } = options;
	const file = file_name('debian_nginx_site', name);
	return placed({ id, depends_on, triggers }, `nginx-site-${file}`, {
		path: `/etc/nginx/sites-enabled/${file}`,
		mode: '644',
		content: nginx_site_core({ ...site, http2: 'listen' }),
		validate: NGINX_VALIDATE,
	});
}

/** A site for Alpine's nginx (3.20 or later): /etc/nginx/http.d/<name>.conf,
 * validated by NGINX_VALIDATE (id default 'nginx-site-<name>'). `name` is
 * a plain file name (letters, digits, . _ -). */
export function alpine_nginx_site(options: NginxSiteOptions & NginxFileOptions & { name: string }): FileSpec {
	const { name, id, depends_on, triggers, ...site } = options;
	const file = file_name('alpine_nginx_site', name);
	return placed({ id, depends_on, triggers }, `nginx-site-${file}`, {
		path: `/etc/nginx/http.d/${file}.conf`,
		mode: '644',
		content: nginx_site_core({ ...site, http2: 'directive' }),
		validate: NGINX_VALIDATE,
	});
}

/** The site's options checked, defaults filled. */
interface Site {
	root: string;
	api_path: string;
	proxy: boolean;
	tls: boolean;
	ipv6: boolean;
	spa: boolean;
	csp: string;
	burst: number | null;
	body: string;
	http2: 'listen' | 'directive';
}

function site_options(label: string, o: NginxSiteCoreOptions): Site {
	if (o === null || typeof o !== 'object') throw new TypeError(`${label}: takes an options object`);
	if (typeof o.domain !== 'string' || o.domain === '') throw new Error(`${label}: domain is required, a name or a reference`);
	if (!has_ref(o.domain)) domain_literal(label, 'domain', o.domain);
	if (o.http2 !== 'listen' && o.http2 !== 'directive') throw new Error(`${label}: http2 is 'listen' or 'directive' (the family's nginx decides; use debian_nginx_site or alpine_nginx_site)`);
	const root = literal(label, 'root', o.root, /^\/[A-Za-z0-9._/-]*$/, 'an absolute path of letters, digits and . _ - /');
	const api_path = literal(label, 'api_path', o.api_path ?? '/api/', /^\/([A-Za-z0-9._-]+\/)*$/, 'a path beginning and ending with /, such as /api/');
	if (o.port !== undefined && typeof o.port !== 'string' && typeof o.port !== 'number') throw new TypeError(`${label}: port is a number or a reference`);
	if (typeof o.port === 'string' && !has_ref(o.port) && !/^[1-9][0-9]{0,4}$/.test(o.port)) throw new Error(`${label}: port ${JSON.stringify(o.port)} is not a port number`);
	if (typeof o.port === 'number' && !(Number.isInteger(o.port) && o.port >= 1 && o.port <= 65535)) throw new Error(`${label}: port ${o.port} is not a port number (1 to 65535)`);
	const csp = literal(label, 'csp', o.csp ?? DEFAULT_CSP, /^[^"\\${}\r\n\0]+$/, 'text without " \\ $ { } or a line break');
	let burst: number | null = 20;
	if (o.rate_limit === false) burst = null;
	else if (o.rate_limit !== undefined) {
		burst = o.rate_limit.burst ?? 20;
		if (!Number.isInteger(burst) || burst < 0 || burst > 100000) throw new Error(`${label}: rate_limit.burst ${burst} is not a whole number from 0 to 100000`);
	}
	const body = literal(label, 'client_max_body_size', o.client_max_body_size ?? '1m', /^[0-9]{1,6}[kmg]?$/, 'a size such as 1m');
	return { root, api_path, proxy: o.port !== undefined, tls: o.tls ?? true, ipv6: o.ipv6 ?? true, spa: o.spa ?? false, csp, burst, body, http2: o.http2 };
}

function server(names: string[], listen: string[], body: string[]): string[] {
	return ['', 'server {', ...listen, `\tserver_name ${names.join(' ')};`, '\tserver_tokens off;', ...body, '}'];
}

function listen80(ipv6: boolean): string[] {
	return ['\tlisten 80;', ...(ipv6 ? ['\tlisten [::]:80;'] : [])];
}

function listen443(o: Site): string[] {
	const h2 = o.http2 === 'listen' ? ' http2' : '';
	const lines = [`\tlisten 443 ssl${h2};`, ...(o.ipv6 ? [`\tlisten [::]:443 ssl${h2};`] : [])];
	if (o.http2 === 'directive') lines.push('\thttp2 on;');
	return lines;
}

function tls_lines(): string[] {
	return [
		`\tssl_certificate ${LETSENCRYPT_LIVE}/{{domain}}/fullchain.pem;`,
		`\tssl_certificate_key ${LETSENCRYPT_LIVE}/{{domain}}/privkey.pem;`,
		'\tssl_protocols TLSv1.2 TLSv1.3;',
		'\tssl_prefer_server_ciphers off;',
		'\tssl_session_timeout 1d;',
		'\tssl_session_tickets off;',
	];
}

function acme(): string[] {
	return ['\tlocation ^~ /.well-known/acme-challenge/ {', `\t\troot ${ACME_WEBROOT};`, '\t\tdefault_type text/plain;', '\t}'];
}

function site_body(o: Site): string[] {
	const lines = o.tls ? tls_lines() : [];
	lines.push(`\troot ${o.root};`, '\tindex index.html;', `\tclient_max_body_size ${o.body};`);
	if (o.burst !== null) lines.push(`\tlimit_req zone=${RATE_LIMIT_ZONE} burst=${o.burst} nodelay;`, '\tlimit_req_status 429;');
	if (o.tls) lines.push('\tadd_header Strict-Transport-Security "max-age=63072000; includeSubDomains" always;');
	lines.push(
		`\tadd_header Content-Security-Policy "${o.csp}" always;`,
		'\tadd_header X-Content-Type-Options nosniff always;',
		'\tadd_header X-Frame-Options DENY always;',
		'\tadd_header Referrer-Policy strict-origin-when-cross-origin always;',
		'\tadd_header Permissions-Policy "camera=(), microphone=(), geolocation=()" always;',
		'\tadd_header Cross-Origin-Opener-Policy same-origin always;',
	);
	if (!o.tls) lines.push(...acme());
	lines.push('\tlocation / {', `\t\ttry_files $uri $uri/ ${o.spa ? '/index.html' : '=404'};`, '\t}');
	if (o.proxy) {
		lines.push(
			`\tlocation ${o.api_path} {`,
			'\t\tproxy_pass http://127.0.0.1:{{port}};',
			'\t\tproxy_http_version 1.1;',
			'\t\tproxy_set_header Host $host;',
			'\t\tproxy_set_header X-Real-IP $remote_addr;',
			'\t\tproxy_set_header X-Forwarded-For $remote_addr;',
			'\t\tproxy_set_header X-Forwarded-Proto $scheme;',
			'\t\tproxy_set_header Connection "";',
			'\t}',
		);
	}
	return lines;
}

/** A value written out, checked against its pattern; a reference is
 * refused, as the option takes none. */
function literal(label: string, field: string, value: unknown, pattern: RegExp, want: string): string {
	if (typeof value !== 'string') throw new TypeError(`${label}: ${field} is a string, not ${value === undefined ? 'missing' : typeof value}`);
	if (has_ref(value)) throw new Error(`${label}: ${field} takes no reference: write it out`);
	if (!pattern.test(value)) throw new Error(`${label}: ${field} ${JSON.stringify(value)} is not ${want}`);
	return value;
}

/** A DNS name written out (letters, digits, - and ., each label 1 to 63,
 * 253 in all), as the domain kind holds a reference's value. */
function domain_literal(label: string, field: string, name: string): string {
	const ok = name.length <= 253 && name.split('.').every((l) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l));
	if (!ok) throw new Error(`${label}: ${field} ${JSON.stringify(name)} is not a DNS name`);
	return name;
}

function file_name(label: string, name: string): string {
	return literal(label, 'name', name, /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/, 'a plain file name (letters, digits, . _ -)');
}

function inline(o: NginxFileOptions, id: string, path: string, content: string): FileSpec {
	return placed(o, id, { path, mode: '644', content: { type: 'inline', content }, validate: NGINX_VALIDATE });
}
