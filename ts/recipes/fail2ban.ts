// fail2ban: one jail file under /etc/fail2ban/jail.d, checked by
// `fail2ban-client -t` before fail2ban reloads onto it. Neutral, but two of
// its defaults are Debian's (sshd_logpath and banaction): on Alpine pass
// both.

import type { FileSpec } from '../types.ts';
import { has_ref } from '../env_ref.ts';
import { placed } from '../placed.ts';

/** The command that checks fail2ban's whole configuration after the jail
 * is written; when it fails the old jail file is put back and fail2ban
 * isn't reloaded. */
export const FAIL2BAN_VALIDATE = 'sudo -n fail2ban-client -t';

/** The options of fail2ban_jail. */
export interface Fail2banJailOptions {
	/** The jail's name, which is also the filter it uses (default 'sshd').
	 * One word of letters, digits, _ and -. */
	jail?: string;
	/** The id of the file resource (default `fail2ban-<jail>`). */
	id?: string;
	/** The file (default /etc/fail2ban/jail.d/<jail>.local). */
	path?: string;
	/** The port the jail bans, a number or a service name (default 'ssh').
	 * With a non-default SSH port, pass the same constant the SSH hardening
	 * gets. */
	port?: number | string;
	/** The log the jail reads (default '/var/log/auth.log', where Debian's
	 * rsyslog writes sshd's lines: a Debian default, so pass it on Alpine,
	 * where syslog writes /var/log/messages). Not written when backend is
	 * 'systemd', which reads the journal. */
	sshd_logpath?: string;
	/** fail2ban's backend (default 'auto'). 'systemd' reads the journal,
	 * which a Debian 12 host without rsyslog needs. */
	backend?: 'auto' | 'polling' | 'pyinotify' | 'systemd';
	/** The action that bans (default 'ufw', the Debian family's firewall: a
	 * Debian default; an Alpine host with the nftables firewall passes
	 * 'nftables-multiport'). */
	banaction?: string;
	/** Failures within findtime that ban (default 5). */
	maxretry?: number;
	/** The window failures are counted in, in fail2ban's time syntax
	 * (default '10m'). */
	findtime?: string;
	/** How long a ban lasts (default '1h'). */
	bantime?: string;
	/** Ids the jail applies after, such as the fail2ban package's. */
	depends_on?: string[];
	/** Ids of services reloaded when the jail changes, such as fail2ban's
	 * service resource. */
	triggers?: string[];
}

const JAIL_NAME = /^[A-Za-z0-9_-]+$/;
const VALUE = /^[A-Za-z0-9_.,:/@%()+-]+$/;

function plain(label: string, value: string): string {
	if (typeof value !== 'string' || has_ref(value)) {
		throw new Error(`fail2ban_jail: ${label}: takes no reference: the jail file is written as declared`);
	}
	if (!VALUE.test(value)) {
		throw new Error(`fail2ban_jail: ${label}: ${JSON.stringify(value)} is not one plain word`);
	}
	return value;
}

/**
 * A fail2ban jail, enabled: its file (mode 644, root's), validated with
 * FAIL2BAN_VALIDATE. Every value is written into the file as declared, so
 * none takes a reference; each must be one plain word, and the jail's name
 * one of letters, digits, _ and -. A maxretry that isn't a positive whole
 * number is refused.
 */
export function fail2ban_jail(options: Fail2banJailOptions = {}): FileSpec {
	const jail = options.jail ?? 'sshd';
	if (!JAIL_NAME.test(jail)) {
		throw new Error(`fail2ban_jail: jail: ${JSON.stringify(jail)} is not a jail name (letters, digits, _ and -)`);
	}
	const maxretry = options.maxretry ?? 5;
	if (!Number.isInteger(maxretry) || maxretry < 1) {
		throw new Error(`fail2ban_jail: maxretry: ${String(maxretry)} is not a positive whole number`);
	}
	const backend = options.backend ?? 'auto';
	const lines = [
		'# Written by Zap (fail2ban_jail). Checked with fail2ban-client -t before fail2ban reloads.',
		`[${jail}]`,
		'enabled = true',
		`port = ${plain('port', String(options.port ?? 'ssh'))}`,
		`backend = ${plain('backend', backend)}`,
		...(backend === 'systemd' ? [] : [`logpath = ${plain('sshd_logpath', options.sshd_logpath ?? '/var/log/auth.log')}`]),
		`banaction = ${plain('banaction', options.banaction ?? 'ufw')}`,
		`maxretry = ${maxretry}`,
		`findtime = ${plain('findtime', options.findtime ?? '10m')}`,
		`bantime = ${plain('bantime', options.bantime ?? '1h')}`,
	];
	return placed(options, `fail2ban-${jail}`, {
		path: options.path ?? `/etc/fail2ban/jail.d/${jail}.local`,
		content: { type: 'inline', content: lines.join('\n') + '\n' },
		mode: '644',
		owner: 'root',
		group: 'root',
		validate: FAIL2BAN_VALIDATE,
	});
}
