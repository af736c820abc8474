// A Debian (or Ubuntu) web server made of recipes alone: a static site with
// an /api proxy behind nginx, the application under a hardened systemd unit,
// SSH hardening, the ufw firewall and a fail2ban jail. Type-checked by
// `make typecheck`; docs/recipes.md explains each piece.
//
// The first run connects as the stock account (zap apply --bootstrap), the
// SSH hardening then lets only DEPLOY_USER in.
import type { Builder } from '@zap-go/zap';
import { env_ref } from '@zap-go/zap/env_ref.ts';
import { debian_nginx_catch_all, debian_nginx_rate_limit_zone, debian_nginx_site } from '@zap-go/zap/recipes/nginx.ts';
import { hardened_systemd_unit } from '@zap-go/zap/recipes/service.ts';
import { debian_ssh_hardening } from '@zap-go/zap/recipes/ssh.ts';
import { debian_web_firewall } from '@zap-go/zap/recipes/firewall.ts';
import { fail2ban_jail } from '@zap-go/zap/recipes/fail2ban.ts';

// Values two resources agree on, each in one place.
const APP = 'app';
const APP_PORT = 3000;
const WWW = `/srv/${APP}/www`;
const ENV_FILE = `/etc/${APP}/env`;
const DOMAIN = env_ref('APP_DOMAIN');

export default (zap: Builder) => {
	zap.target({
		host: zap.env('DEPLOY_HOST'),
		user: zap.env('DEPLOY_USER'),
		bootstrap_user: zap.env('BOOTSTRAP_USER'),
		package_manager: 'apt',
		service_manager: 'systemd',
	});

	// The operator's account, which the SSH hardening lets in alone.
	zap.user({ id: 'deployer', username: 'deploy', shell: '/bin/bash', ssh_keys: { copy_from: 'root' }, sudo: 'nopasswd' });
	const ssh = debian_ssh_hardening({ allow_users: ['deploy'], depends_on: ['deployer'] });
	zap.file(ssh.dropin).service(ssh.service);

	const fw = debian_web_firewall();
	zap.pkg(fw.pkg).firewall(fw.firewall);

	zap.pkg({ id: 'fail2ban-pkg', from: { apt: 'fail2ban' } });
	zap.service({ id: 'fail2ban', service: 'fail2ban', enabled: true, running: true, depends_on: ['fail2ban-pkg'] });
	zap.file(fail2ban_jail({ backend: 'systemd', depends_on: ['fail2ban-pkg', fw.firewall.id], triggers: ['fail2ban'] }));

	// The application: its account, its env file (readable by it alone) and
	// its unit. A program on a JIT runtime sets memory_deny_write_execute: false.
	zap.user({ id: 'app-user', username: APP, shell: '/usr/sbin/nologin' });
	zap.directory({ id: 'app-etc', path: `/etc/${APP}`, mode: '755' });
	zap.file({
		id: 'app-env', path: ENV_FILE, mode: '600', owner: APP, group: APP, depends_on: ['app-etc', 'app-user'],
		content: { type: 'template', template: 'PUBLIC_URL=https://{{domain}}\n', vars: { domain: DOMAIN }, kinds: { domain: 'domain' } },
	});
	zap.file(hardened_systemd_unit({
		id: 'app-unit', depends_on: ['app-user'],
		name: APP, user: APP, command: `/srv/${APP}/current/server`, command_args: `--port ${APP_PORT}`,
		working_directory: `/srv/${APP}/current`, env_file: ENV_FILE, read_write_paths: [`/srv/${APP}/data`],
	}));
	zap.service({ id: 'app', service: APP, enabled: true, running: true, restart_on: ['app-unit', 'app-env'], depends_on: ['app-unit', 'app-env'] });

	// nginx: the zone, the catch-all in place of Debian's default site, and
	// the site over TLS (its certificate issued by the certbot recipes).
	zap.pkg({ id: 'nginx-pkg', from: { apt: 'nginx' } });
	zap.directory({ id: 'www', path: WWW, mode: '755' });
	zap.file(debian_nginx_rate_limit_zone({ id: 'nginx-zone', depends_on: ['nginx-pkg'] }));
	zap.file(debian_nginx_catch_all({ id: 'nginx-catch-all', depends_on: ['nginx-pkg'] }));
	zap.file(debian_nginx_site({ id: 'nginx-site', depends_on: ['nginx-zone', 'nginx-catch-all', 'www'], name: APP, domain: DOMAIN, redirect_domains: [`www.${DOMAIN}`], root: WWW, port: APP_PORT }));
	zap.service({ id: 'nginx', service: 'nginx', enabled: true, running: true, reload_on: ['nginx-zone', 'nginx-catch-all', 'nginx-site'], depends_on: ['nginx-pkg'] });
};
