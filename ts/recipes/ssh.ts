// SSH hardening: an sshd_config drop-in, checked by `sshd -t` before sshd is
// reloaded onto it, and the sshd service that reloads when it changes. The
// drop-in is the same on Debian and Alpine; only the service's name differs,
// so debian_ssh_hardening and alpine_ssh_hardening are thin wrappers over
// ssh_hardening_core.
//
// The bootstrap-user flow (a host whose stock account creates the account
// Zap connects as from then on, then loses its own login): declare the new
// account with its keys and sudo, list it in allow_users, and make the
// drop-in depend on it, so the account can log in before the lock-out:
//
//	zap.target({ host: zap.env('DEPLOY_HOST'), user: zap.env('DEPLOY_USER'),
//		bootstrap_user: zap.env('BOOTSTRAP_USER'), ... });
//	zap.user({ id: 'deploy-user', username: 'deploy', ssh_keys, sudo: 'nopasswd' });
//	const ssh = debian_ssh_hardening({ allow_users: ['deploy'], depends_on: ['deploy-user'] });
//	zap.file(ssh.dropin).service(ssh.service);
//
// The first bring-up is `zap apply --bootstrap` then `zap apply --bootstrap
// --wetrun`, connecting as the stock account; every later run connects as
// the declared user.

import type { FileSpec, ServiceSpec } from '../types.ts';
import { has_ref } from '../env_ref.ts';
import { placed } from '../placed.ts';

/** The command that checks sshd's whole configuration, drop-ins included,
 * run after the drop-in is written; when it fails the old drop-in is put
 * back and sshd isn't reloaded. */
export const SSHD_VALIDATE = 'sudo -n /usr/sbin/sshd -t';

/** Where the drop-in goes by default. sshd keeps the first value it reads
 * for most keywords and reads sshd_config.d/*.conf in name order from the
 * Include at the top of Debian's and Alpine's sshd_config, so a 00- name is
 * read before a cloud image's 50-cloud-init.conf and wins over it. */
export const SSHD_DROPIN_PATH = '/etc/ssh/sshd_config.d/00-zap-hardening.conf';

/** The options of ssh_hardening_core and its wrappers. */
export interface SshHardeningOptions {
	/** The accounts that may log in over SSH (AllowUsers): at least one.
	 * Every other account, the stock one a bootstrap run connected as and
	 * root among them, is refused at login. Each is an account name or a
	 * reference (such as zap.env('DEPLOY_USER')); a reference goes into the
	 * drop-in as a template variable of kind word. */
	allow_users: string[];
	/** The id of the drop-in file resource (default 'sshd-hardening'). */
	id?: string;
	/** The id of the sshd service resource (default 'sshd'). A config that
	 * already declares the service passes its id and spreads only
	 * reload_on. */
	service_id?: string;
	/** The drop-in's path (default SSHD_DROPIN_PATH). Takes no reference. */
	path?: string;
	/** The port sshd listens on (Port). Left out, the drop-in sets none and
	 * sshd_config's (22 unless changed) stands. Keep the firewall's SSH rule
	 * on the same value: pass one constant to both. */
	port?: number;
	/** PermitRootLogin: 'no' (the default) or 'prohibit-password' (root by
	 * key only). */
	permit_root_login?: 'no' | 'prohibit-password';
	/** MaxAuthTries (default 3). */
	max_auth_tries?: number;
	/** LoginGraceTime in seconds (default 30). */
	login_grace_time?: number;
	/** ClientAliveInterval in seconds (default 300). */
	client_alive_interval?: number;
	/** ClientAliveCountMax (default 2): with the interval, how long a dead
	 * client's session is kept. */
	client_alive_count_max?: number;
	/** AllowTcpForwarding (default false). Agent, X11 and tunnel forwarding
	 * are always off. */
	allow_tcp_forwarding?: boolean;
	/** Ids the drop-in applies after: the resource that declares each
	 * allowed account with its keys, so it can log in before the others are
	 * locked out. */
	depends_on?: string[];
}

/** What the SSH hardening recipes return: hand each to its builder call,
 * `zap.file(ssh.dropin).service(ssh.service)`. */
export interface SshHardening {
	/** The drop-in, a template whose allow_user_<i> variables are the
	 * allowed accounts (kind word), validated with SSHD_VALIDATE. */
	dropin: FileSpec;
	/** sshd, enabled and running, reloaded when the drop-in changes. */
	service: ServiceSpec;
}

const WORD = /^[A-Za-z0-9_.+:/@-]+$/;

function positive(label: string, value: number | undefined, fallback: number): number {
	const v = value ?? fallback;
	if (!Number.isInteger(v) || v < 1) {
		throw new Error(`ssh_hardening: ${label}: ${String(v)} is not a positive whole number`);
	}
	return v;
}

/**
 * The neutral core of SSH hardening: the drop-in and the sshd service named
 * `service_name` ('ssh' on Debian, 'sshd' on Alpine; the wrappers pass it).
 * Key login only (no password, no keyboard-interactive, no empty password),
 * only allow_users, no root login, no agent, X11 or tunnel forwarding.
 * Refuses, naming the option: no allow_users, an allowed account written
 * out that isn't one word, a port outside 1 to 65535, and a count or time
 * that isn't a positive whole number.
 */
export function ssh_hardening_core(options: SshHardeningOptions, service_name: string): SshHardening {
	const users = options.allow_users;
	if (!Array.isArray(users) || users.length === 0) {
		throw new Error('ssh_hardening: allow_users: name at least one account that may log in');
	}
	const vars: Record<string, string> = {};
	const kinds: Record<string, 'word'> = {};
	users.forEach((user, i) => {
		if (typeof user !== 'string' || (!has_ref(user) && !WORD.test(user))) {
			throw new Error(`ssh_hardening: allow_users[${i}]: ${JSON.stringify(user)} is not one account name`);
		}
		vars[`allow_user_${i}`] = user;
		kinds[`allow_user_${i}`] = 'word';
	});
	const port = options.port;
	if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) {
		throw new Error(`ssh_hardening: port: ${String(port)} is not a port (1 to 65535)`);
	}
	const root = options.permit_root_login ?? 'no';
	if (root !== 'no' && root !== 'prohibit-password') {
		throw new Error(`ssh_hardening: permit_root_login: ${JSON.stringify(root)} is neither 'no' nor 'prohibit-password'`);
	}
	const lines = [
		'# Written by Zap (ssh_hardening). Checked with sshd -t before sshd reloads.',
		...(port === undefined ? [] : [`Port ${port}`]),
		`AllowUsers ${users.map((_, i) => `{{allow_user_${i}}}`).join(' ')}`,
		`PermitRootLogin ${root}`,
		'PubkeyAuthentication yes',
		'AuthenticationMethods publickey',
		'PasswordAuthentication no',
		'KbdInteractiveAuthentication no',
		'PermitEmptyPasswords no',
		`MaxAuthTries ${positive('max_auth_tries', options.max_auth_tries, 3)}`,
		`LoginGraceTime ${positive('login_grace_time', options.login_grace_time, 30)}`,
		`ClientAliveInterval ${positive('client_alive_interval', options.client_alive_interval, 300)}`,
		`ClientAliveCountMax ${positive('client_alive_count_max', options.client_alive_count_max, 2)}`,
		`AllowTcpForwarding ${options.allow_tcp_forwarding ? 'yes' : 'no'}`,
		'AllowAgentForwarding no',
		'X11Forwarding no',
		'PermitTunnel no',
	];
	const service_id = options.service_id ?? 'sshd';
	const dropin = placed(options, 'sshd-hardening', {
		path: options.path ?? SSHD_DROPIN_PATH,
		content: { type: 'template', template: lines.join('\n') + '\n', vars, kinds },
		mode: '644',
		owner: 'root',
		group: 'root',
		validate: SSHD_VALIDATE,
	});
	const service: ServiceSpec = {
		id: service_id,
		service: service_name,
		enabled: true,
		running: true,
		reload_on: [dropin.id],
	};
	return { dropin, service };
}

/** SSH hardening on Debian and Ubuntu: the drop-in, and the service 'ssh'
 * (systemd). */
export function debian_ssh_hardening(options: SshHardeningOptions): SshHardening {
	return ssh_hardening_core(options, 'ssh');
}

/** SSH hardening on Alpine: the drop-in, and the service 'sshd' (OpenRC).
 * Alpine's sshd_config includes sshd_config.d from 3.18 on; on an older one
 * the drop-in is written and checked but not read. */
export function alpine_ssh_hardening(options: SshHardeningOptions): SshHardening {
	return ssh_hardening_core(options, 'sshd');
}
