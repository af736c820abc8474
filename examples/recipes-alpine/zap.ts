// An Alpine web server made of recipes alone: the same site as
// examples/recipes-debian, under OpenRC with its env file read by the init
// script's own reader, SSH hardening and the nftables firewall. Type-checked
// by `make typecheck`; docs/recipes.md explains each piece.
import type { Builder } from '@zap-go/zap';
import { env_ref } from '@zap-go/zap/env_ref.ts';
import { alpine_nginx_catch_all, alpine_nginx_rate_limit_zone, alpine_nginx_site } from '@zap-go/zap/recipes/nginx.ts';
import { hardened_openrc_service } from '@zap-go/zap/recipes/service.ts';
import { alpine_ssh_hardening } from '@zap-go/zap/recipes/ssh.ts';
import { alpine_web_firewall } from '@zap-go/zap/recipes/firewall.ts';

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
		package_manager: 'apk',
		service_manager: 'openrc',
	});

	zap.user({ id: 'deployer', username: 'deploy', shell: '/bin/ash', ssh_keys: { copy_from: 'root' }, sudo: 'nopasswd' });
	const ssh = alpine_ssh_hardening({ allow_users: ['deploy'], depends_on: ['deployer'] });
	zap.file(ssh.dropin).service(ssh.service);

	const fw = alpine_web_firewall();
	zap.pkg(fw.pkg).firewall(fw.firewall).service(fw.service);

	// The application under OpenRC. The env file is in the format both
	// systemd and the script's reader read (docs/recipes.md); the service
	// user must be able to read it.
	zap.user({ id: 'app-user', username: APP, shell: '/sbin/nologin' });
	zap.directory({ id: 'app-etc', path: `/etc/${APP}`, mode: '755' });
	zap.file({
		id: 'app-env', path: ENV_FILE, mode: '600', owner: APP, group: APP, depends_on: ['app-etc', 'app-user'],
		content: { type: 'template', template: 'PUBLIC_URL=https://{{domain}}\n', vars: { domain: DOMAIN }, kinds: { domain: 'domain' } },
	});
	zap.file(hardened_openrc_service({
		id: 'app-initd', depends_on: ['app-user'],
		name: APP, user: APP, command: `/srv/${APP}/current/server`, command_args: `--port ${APP_PORT}`,
		working_directory: `/srv/${APP}/current`, env_file: ENV_FILE,
	}));
	zap.service({ id: 'app', service: APP, enabled: true, running: true, restart_on: ['app-initd', 'app-env'], depends_on: ['app-initd', 'app-env'] });

	zap.pkg({ id: 'nginx-pkg', from: { apk: 'nginx' } });
	zap.directory({ id: 'www', path: WWW, mode: '755' });
	zap.file(alpine_nginx_rate_limit_zone({ id: 'nginx-zone', depends_on: ['nginx-pkg'] }));
	zap.file(alpine_nginx_catch_all({ id: 'nginx-catch-all', depends_on: ['nginx-pkg'] }));
	zap.file(alpine_nginx_site({ id: 'nginx-site', depends_on: ['nginx-zone', 'nginx-catch-all', 'www'], name: APP, domain: DOMAIN, redirect_domains: [`www.${DOMAIN}`], root: WWW, port: APP_PORT }));
	zap.service({ id: 'nginx', service: 'nginx', enabled: true, running: true, reload_on: ['nginx-zone', 'nginx-catch-all', 'nginx-site'], depends_on: ['nginx-pkg'] });
};
