// A web server's firewall: incoming traffic denied but for SSH, HTTP and
// HTTPS (and any ports the caller adds), outgoing allowed. The rules are the
// same everywhere (web_firewall_core); what differs is the tool: ufw on
// Debian and Ubuntu (debian_web_firewall), nftables on Alpine, whose rules
// only survive a reboot through the nftables service
// (alpine_web_firewall).

import type { AllowRule, FirewallSpec, PackageSpec, ServiceSpec } from '../types.ts';

/** The port SSH is allowed on when the caller names none. */
export const SSH_PORT = 22;

/** The options of the web firewall recipes. */
export interface WebFirewallOptions {
	/** The id of the firewall resource (default 'firewall'); the package is
	 * `<id>-pkg` and, on Alpine, the service `<id>-service`. */
	id?: string;
	/** The port SSH listens on (default SSH_PORT, 22). Keep it the value
	 * the SSH hardening's port gets: pass one constant to both. */
	ssh_port?: number;
	/** Whether 80 and 443 (tcp) are open (default true). */
	web?: boolean;
	/** More rules, each a port with its protocol (tcp unless said). */
	extra?: { port: number; proto?: 'tcp' | 'udp' | 'any' }[];
	/** Ids the firewall applies after. Its package is always among them. */
	depends_on?: string[];
}

/** What debian_web_firewall returns: `zap.pkg(fw.pkg).firewall(fw.firewall)`. */
export interface DebianWebFirewall {
	/** ufw, from apt. */
	pkg: PackageSpec;
	/** The ufw firewall: deny incoming, allow outgoing, the rules. */
	firewall: FirewallSpec;
}

/** What alpine_web_firewall returns:
 * `zap.pkg(fw.pkg).firewall(fw.firewall).service(fw.service)`. */
export interface AlpineWebFirewall {
	/** nftables, from apk. */
	pkg: PackageSpec;
	/** The nftables firewall, scoped to its own table. */
	firewall: FirewallSpec;
	/** The nftables service, enabled, which loads the ruleset at boot. Zap
	 * refuses an nftables firewall without it. */
	service: ServiceSpec;
}

function checked_port(label: string, port: unknown): number {
	if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
		throw new Error(`web_firewall: ${label}: ${String(port)} is not a port (1 to 65535)`);
	}
	return port;
}

/**
 * The neutral core: a firewall resource on `backend` that denies incoming
 * traffic and allows outgoing, with the SSH port, 80 and 443 (unless web is
 * false) and each extra rule allowed. Every rule is a port, never a ufw
 * profile name, so it reads the same under either backend. A port outside
 * 1 to 65535 is refused, naming the option.
 */
export function web_firewall_core(options: WebFirewallOptions, backend: 'ufw' | 'nftables', pkg_id: string): FirewallSpec {
	const allow: AllowRule[] = [{ port: checked_port('ssh_port', options.ssh_port ?? SSH_PORT), proto: 'tcp' }];
	if (options.web ?? true) {
		allow.push({ port: 80, proto: 'tcp' }, { port: 443, proto: 'tcp' });
	}
	(options.extra ?? []).forEach((rule, i) => {
		allow.push({ port: checked_port(`extra[${i}].port`, rule.port), proto: rule.proto ?? 'tcp' });
	});
	const depends_on = [pkg_id, ...(options.depends_on ?? []).filter((d) => d !== pkg_id)];
	return {
		id: options.id ?? 'firewall',
		backend,
		allow,
		default_incoming: 'deny',
		default_outgoing: 'allow',
		depends_on,
	};
}

/** The web firewall on Debian and Ubuntu: ufw, installed first, then its
 * policies and rules, then enabled. */
export function debian_web_firewall(options: WebFirewallOptions = {}): DebianWebFirewall {
	const id = options.id ?? 'firewall';
	const pkg: PackageSpec = { id: `${id}-pkg`, from: { apt: 'ufw' } };
	return { pkg, firewall: web_firewall_core(options, 'ufw', pkg.id) };
}

/** The web firewall on Alpine: nftables, installed first, its table with
 * the policies and rules, and the nftables service enabled so the rules are
 * loaded again at boot. */
export function alpine_web_firewall(options: WebFirewallOptions = {}): AlpineWebFirewall {
	const id = options.id ?? 'firewall';
	const pkg: PackageSpec = { id: `${id}-pkg`, from: { apk: 'nftables' } };
	const service: ServiceSpec = { id: `${id}-service`, service: 'nftables', enabled: true, depends_on: [pkg.id] };
	return { pkg, firewall: web_firewall_core(options, 'nftables', pkg.id), service };
}
