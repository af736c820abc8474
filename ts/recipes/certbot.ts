// certbot: a Let's Encrypt certificate issued with --standalone (nginx
// stopped to free port 80), and the switch of its renewals to --webroot, so
// later renewals run with nginx up. Both lead to a request to the CA, and a
// fresh host whose DNS doesn't point at it yet fails every validation, which
// Let's Encrypt counts against the account; so each script first runs the
// DNS preflight on the target (certbot_dns_preflight) and refuses, with
// every reason on stderr, before nginx is stopped or certbot runs.
//
// The scripts are the same on every distro but for the commands that stop
// and reload nginx, so certbot_issue_core and certbot_webroot_core take
// them and the debian_* / alpine_* wrappers fill them in.

import type { ScriptSpec } from '../types.ts';
import { env_ref, has_ref } from '../env_ref.ts';
import { single_quote } from '../shell.ts';
import { ACME_WEBROOT, LETSENCRYPT_LIVE } from './nginx.ts';

// The directory certbot --webroot writes its challenges into is the one the
// nginx sites serve /.well-known/acme-challenge/ from, and the certificate is
// read where the sites read it: nginx.ts's constants, so the two can't drift.
// ACME_WEBROOT is re-exported for a config that imports certbot alone.
export { ACME_WEBROOT };

/** The options every certbot recipe takes. */
export interface CertbotOptions {
	/** The certificate's first name, and its name in certbot
	 * (LETSENCRYPT_LIVE/<domain>). Takes a reference. */
	domain: string;
	/** More names on the same certificate. Each takes a reference. A name
	 * added later makes the check fail, so the script runs again, preflight
	 * first, and asks for a certificate with every name. */
	extra_domains?: string[];
	/** The addresses every name must resolve to, and only to: IP literals,
	 * or references resolving to one, IPv6 compressed and lowercase as getent
	 * prints it. Default: one reference to DEPLOY_HOST, the target's host,
	 * which refuses until this is declared when DEPLOY_HOST holds a host name
	 * rather than an address. Declare the set too when a name has an AAAA
	 * record. */
	expected_addresses?: string[];
	/** The account's contact address for Let's Encrypt. Takes a
	 * reference. */
	email: string;
	/** Ask Let's Encrypt's staging CA (--test-cert), whose certificates no
	 * browser trusts, while trying a config out (default false). */
	staging?: boolean;
	/** The id of the script resource (default 'certbot-issue' for the
	 * issuance, 'certbot-webroot' for the switch). */
	id?: string;
	/** Ids the script applies after: certbot's package, and for the webroot
	 * switch the issuance and the nginx site that serves ACME_WEBROOT.
	 * Make nginx's own service depend on the issuance, so it is skipped,
	 * not started without a certificate, when the request fails. */
	depends_on?: string[];
}

/** The options of the issuance core: CertbotOptions and the command that
 * stops nginx. */
export interface CertbotIssueCoreOptions extends CertbotOptions {
	/** The command that stops nginx to free port 80, shell words by design.
	 * The wrappers stop it only when it runs (`systemctl is-active` /
	 * `rc-service nginx status` first), so a host with no nginx yet is
	 * issued too. It runs only after the preflight passed; when it fails,
	 * certbot doesn't run. */
	stop_command: string;
}

/** The options of the webroot switch's core: CertbotOptions and the command
 * that reloads nginx once a certificate is renewed. */
export interface CertbotWebrootCoreOptions extends CertbotOptions {
	/** The directory the challenges are written to (default ACME_WEBROOT).
	 * Takes a reference. */
	webroot?: string;
	/** The command certbot runs after each renewal (its --deploy-hook),
	 * shell words by design: the wrappers pass `systemctl reload nginx` or
	 * `rc-service nginx reload`. certbot runs it as root. */
	reload_command: string;
}

/** What counts as an IP literal: four dotted numbers, or hex digits, dots
 * and colons with a colon among them. The preflight's shell check uses the
 * same pattern. */
const IP_LITERAL = /^(([0-9]{1,3}[.]){3}[0-9]{1,3}|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$/;

/** The names on the certificate: domain, then extra_domains. */
function names_of(options: CertbotOptions): string[] {
	if (typeof options.domain !== 'string' || options.domain === '') {
		throw new Error('certbot: domain: required, the certificate\'s first name');
	}
	return [options.domain, ...(options.extra_domains ?? [])];
}

function words(values: string[]): string {
	return values.map(single_quote).join(' ');
}

/**
 * The DNS preflight, as shell lines: every name in `names` must resolve,
 * through both `getent ahosts` and `getent hosts`, only to addresses in
 * `expected_addresses`, each of which must be an IP literal. It checks
 * every name before it decides, prints each reason on stderr (a name ahosts
 * can't resolve, a lookup that prints no address, an address outside the
 * set, an expected address that isn't an IP literal) and exits 1 if there
 * was one. The issuance and the webroot switch run it first; it is exported
 * for a script of the caller's own.
 */
export function certbot_dns_preflight(names: string[], expected_addresses: string[]): string {
	if (names.length === 0) {
		throw new Error('certbot_dns_preflight: names: at least one');
	}
	if (expected_addresses.length === 0) {
		throw new Error('certbot_dns_preflight: expected_addresses: at least one');
	}
	return [
		'zap_pf_fail=0',
		'zap_pf_expected=',
		`for zap_pf_a in ${words(expected_addresses)}; do`,
		`\tif printf '%s\\n' "$zap_pf_a" | grep -Eqx ${single_quote(IP_LITERAL.source.slice(1, -1))}; then`,
		`\t\tzap_pf_expected="$zap_pf_expected $(printf '%s' "$zap_pf_a" | tr 'A-F' 'a-f')"`,
		'\telse',
		`\t\techo "certbot preflight: expected address '$zap_pf_a' is not an IP literal: declare expected_addresses" >&2`,
		'\t\tzap_pf_fail=1',
		'\tfi',
		'done',
		`for zap_pf_n in ${words(names)}; do`,
		`\tzap_pf_ah=$(getent ahosts "$zap_pf_n" | awk '{print $1}' | sort -u)`,
		`\tzap_pf_h=$(getent hosts "$zap_pf_n" | awk '{print $1}' | sort -u)`,
		'\tif [ -z "$zap_pf_ah" ]; then',
		`\t\techo "certbot preflight: $zap_pf_n: getent ahosts resolves no address" >&2`,
		'\t\tzap_pf_fail=1',
		'\t\tcontinue',
		'\tfi',
		'\tif [ -z "$zap_pf_h" ]; then',
		`\t\techo "certbot preflight: $zap_pf_n: getent hosts prints no address" >&2`,
		'\t\tzap_pf_fail=1',
		'\tfi',
		`\tfor zap_pf_x in $(printf '%s\\n' $zap_pf_ah $zap_pf_h | sort -u); do`,
		'\t\tcase " $zap_pf_expected " in',
		'\t\t*" $zap_pf_x "*) ;;',
		`\t\t*) echo "certbot preflight: $zap_pf_n resolves to $zap_pf_x, which isn't in expected_addresses" >&2; zap_pf_fail=1 ;;`,
		'\t\tesac',
		'\tdone',
		'done',
		'if [ "$zap_pf_fail" != 0 ]; then',
		`\techo 'certbot preflight: refused: nothing was stopped and certbot did not run' >&2`,
		'\texit 1',
		'fi',
	].join('\n');
}

/** A check that passes when the live certificate of `domain` holds every
 * one of `names`, read from its subjectAltName. */
function covers_check(domain: string, names: string[]): string {
	const cert = single_quote(`${LETSENCRYPT_LIVE}/${domain}/cert.pem`);
	return [
		`zap_san=$(sudo openssl x509 -in ${cert} -noout -ext subjectAltName 2>/dev/null | tr -s ', ' '\\n\\n') || exit 1`,
		`for zap_n in ${words(names)}; do printf '%s\\n' "$zap_san" | grep -qxF "DNS:$zap_n" || exit 1; done`,
	].join('\n');
}

function certbot_words(options: CertbotOptions, names: string[]): string {
	return [
		'sudo certbot certonly --non-interactive --agree-tos',
		`-m ${single_quote(options.email)}`,
		...(options.staging ? ['--test-cert'] : []),
		`--cert-name ${single_quote(options.domain)}`,
		...names.map((n) => `-d ${single_quote(n)}`),
	].join(' ');
}

/** expected_addresses, or its default; one written out that isn't an IP
 * literal is refused here (a reference is checked by the target, when the
 * script runs). */
function expected_of(options: CertbotOptions): string[] {
	const expected = options.expected_addresses ?? [env_ref('DEPLOY_HOST')];
	if (expected.length === 0) {
		throw new Error('certbot: expected_addresses: at least one address');
	}
	expected.forEach((a, i) => {
		if (typeof a !== 'string' || (!has_ref(a) && !IP_LITERAL.test(a))) {
			throw new Error(`certbot: expected_addresses[${i}]: ${JSON.stringify(a)} is not an IP literal`);
		}
	});
	return expected;
}

function with_depends(spec: ScriptSpec, depends_on: string[] | undefined): ScriptSpec {
	if (depends_on !== undefined) {
		spec.depends_on = [...depends_on];
	}
	return spec;
}

/**
 * The issuance: when no live certificate holds every name, run the DNS
 * preflight, then stop_command, then `certbot certonly --standalone` for
 * every name. A refused preflight exits 1 with nginx running and certbot
 * not run; a certbot that fails after the stop leaves nginx stopped, and
 * the resources that depend on the issuance are skipped until a later
 * apply's request succeeds.
 */
export function certbot_issue_core(options: CertbotIssueCoreOptions): ScriptSpec {
	const names = names_of(options);
	const run = [
		'set -e',
		certbot_dns_preflight(names, expected_of(options)),
		options.stop_command,
		`${certbot_words(options, names)} --standalone`,
	].join('\n');
	return with_depends({ id: options.id ?? 'certbot-issue', check: covers_check(options.domain, names), run }, options.depends_on);
}

/**
 * The webroot switch: when the certificate's renewal isn't set to webroot
 * (or it lacks a name), run the DNS preflight, then re-issue it with
 * `certbot certonly --webroot -w <webroot> --force-renewal`, so certbot
 * records webroot for every later renewal and they run with nginx up.
 * nginx must serve /.well-known/acme-challenge/ from the same webroot.
 */
export function certbot_webroot_core(options: CertbotWebrootCoreOptions): ScriptSpec {
	const names = names_of(options);
	const webroot = single_quote(options.webroot ?? ACME_WEBROOT);
	const renewal = single_quote(`/etc/letsencrypt/renewal/${options.domain}.conf`);
	const check = [`sudo grep -qx 'authenticator = webroot' ${renewal} || exit 1`, covers_check(options.domain, names)].join('\n');
	const run = [
		'set -e',
		certbot_dns_preflight(names, expected_of(options)),
		`sudo mkdir -p ${webroot}`,
		`${certbot_words(options, names)} --webroot -w ${webroot} --force-renewal --deploy-hook ${single_quote(options.reload_command)}`,
	].join('\n');
	return with_depends({ id: options.id ?? 'certbot-webroot', check, run }, options.depends_on);
}

/** The issuance on Debian and Ubuntu: nginx, when it runs, stopped with
 * systemctl. */
export function debian_certbot_issue(options: CertbotOptions): ScriptSpec {
	return certbot_issue_core({ ...options, stop_command: 'if systemctl is-active --quiet nginx; then sudo systemctl stop nginx; fi' });
}

/** The issuance on Alpine: nginx, when it runs, stopped with rc-service. */
export function alpine_certbot_issue(options: CertbotOptions): ScriptSpec {
	return certbot_issue_core({ ...options, stop_command: 'if sudo rc-service nginx status >/dev/null 2>&1; then sudo rc-service nginx stop; fi' });
}

/** The webroot switch on Debian and Ubuntu: renewals reload nginx with
 * systemctl. */
export function debian_certbot_webroot(options: CertbotOptions & { webroot?: string }): ScriptSpec {
	return certbot_webroot_core({ ...options, reload_command: 'systemctl reload nginx' });
}

/** The webroot switch on Alpine: renewals reload nginx with rc-service. */
export function alpine_certbot_webroot(options: CertbotOptions & { webroot?: string }): ScriptSpec {
	return certbot_webroot_core({ ...options, reload_command: 'rc-service nginx reload' });
}
