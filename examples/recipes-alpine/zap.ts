// An Alpine server brought up from its stock account with recipes alone:
// the account Zap connects as from then on, SSH locked to it on its own
// port, the nftables firewall with its boot service, fail2ban's sshd jail on
// nftables, PostgreSQL made by the init script's setup, the application
// under OpenRC with its env file read by the init script's own reader, and
// nginx serving the app's build and proxying /api/ to it over a Let's
// Encrypt certificate issued behind the DNS preflight, then renewed through
// the webroot. Type-checked by `make typecheck`; docs/recipes.md explains
// each piece. It needs an Alpine host (3.20 or later) with its mirror and a
// CA, which the tests don't have: the walk
// cmd/zap/testdata/script/recipes_alpine_server_lab_openrc.txtar runs the
// same recipes on the OpenRC lab host, saying what it bridges.
//
// The first run connects as BOOTSTRAP_USER, the stock account (root on a
// fresh Alpine): `zap apply --bootstrap`, then
// `zap apply --bootstrap --wetrun`. The SSH hardening then locks that
// account out; the wetrun reads the host again as DEPLOY_USER, and every
// later run connects as DEPLOY_USER.
import type { Builder } from '@zap-go/zap';
import { env_ref } from '@zap-go/zap/env_ref.ts';
import { alpine_certbot_issue, alpine_certbot_webroot } from '@zap-go/zap/recipes/certbot.ts';
import { fail2ban_jail } from '@zap-go/zap/recipes/fail2ban.ts';
import { alpine_web_firewall } from '@zap-go/zap/recipes/firewall.ts';
import { alpine_nginx_catch_all, alpine_nginx_rate_limit_zone, alpine_nginx_site } from '@zap-go/zap/recipes/nginx.ts';
import { alpine_postgres_setup } from '@zap-go/zap/recipes/postgres.ts';
import { hardened_openrc_service } from '@zap-go/zap/recipes/service.ts';
import { alpine_ssh_hardening } from '@zap-go/zap/recipes/ssh.ts';

// One value, one home: each of these is read by more than one resource.
const DEPLOY = 'deploy';
const APP = 'app';
const CURRENT = `/srv/${APP}/current`;
const ENV_FILE = `/etc/${APP}/env`;
const SSH_PORT = 2222;
const APP_PORT = 3000;
const DOMAIN = env_ref('APP_DOMAIN');

export default (zap: Builder) => {
	zap.target({
		host: zap.env('DEPLOY_HOST'),
		user: zap.env('DEPLOY_USER'),
		bootstrap_user: zap.env('BOOTSTRAP_USER'),
		package_manager: 'apk',
		service_manager: 'openrc',
	});

	// The account every later run connects as (DEPLOY_USER must hold the
	// same name), then SSH locked to it on SSH_PORT, which the firewall
	// and the jail get too.
	zap.user({
		id: 'deploy-user',
		username: DEPLOY,
		shell: '/bin/ash',
		ssh_keys: { keys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleExampleExampleExampleExampleExampl ops'] },
		sudo: 'nopasswd',
	});
	const ssh = alpine_ssh_hardening({ allow_users: [DEPLOY], port: SSH_PORT, depends_on: ['deploy-user'] });
	zap.file(ssh.dropin).service(ssh.service);

	const fw = alpine_web_firewall({ ssh_port: SSH_PORT });
	zap.pkg(fw.pkg).firewall(fw.firewall).service(fw.service);

	// fail2ban_jail's defaults are Debian's: Alpine's syslog writes
	// /var/log/messages, and the firewall is nftables.
	zap.pkg({ id: 'fail2ban-pkg', from: { apk: 'fail2ban' } });
	zap.file(fail2ban_jail({ port: SSH_PORT, sshd_logpath: '/var/log/messages', banaction: 'nftables-multiport', depends_on: ['fail2ban-pkg', fw.firewall.id] }));
	zap.service({ id: 'fail2ban', service: 'fail2ban', enabled: true, running: true, restart_on: ['fail2ban-sshd'], depends_on: ['fail2ban-sshd'] });

	const pg = alpine_postgres_setup({ version: 16 });
	zap.pkg(pg.pkg).script(pg.setup).service(pg.service);

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
		name: APP, user: APP, command: `${CURRENT}/server`, command_args: `--port ${APP_PORT}`,
		working_directory: CURRENT, env_file: ENV_FILE, after: ['postgresql'],
	}));
	zap.service({ id: 'app', service: APP, enabled: true, running: true, restart_on: ['app-initd', 'app-env'], depends_on: ['app-initd', 'app-env', pg.service.id] });

	// The certificate: issued with nginx stopped, after the preflight, for
	// the addresses the name must resolve to; then renewed through the
	// webroot the nginx site serves.
	zap.pkg({ id: 'certbot-pkg', from: { apk: 'certbot' } });
	const cert = { domain: DOMAIN, extra_domains: [`www.${DOMAIN}`], email: zap.env('ACME_EMAIL'), expected_addresses: [zap.env('DEPLOY_IPV4'), zap.env('DEPLOY_IPV6')] };
	const issue = alpine_certbot_issue({ ...cert, depends_on: ['certbot-pkg', fw.firewall.id] });
	zap.script(issue);

	// nginx: the zone, the catch-all in place of Alpine's default site
	// (http.d/default.conf), and the site over TLS, proxying /api/ to the
	// app. nginx depends on the issuance: a failed request skips it rather
	// than starting it without a certificate.
	zap.pkg({ id: 'nginx-pkg', from: { apk: 'nginx' } });
	zap.file(alpine_nginx_rate_limit_zone({ id: 'nginx-zone', depends_on: ['nginx-pkg'] }));
	zap.file(alpine_nginx_catch_all({ id: 'nginx-catch-all', depends_on: ['nginx-pkg'] }));
	zap.file(alpine_nginx_site({
		id: 'nginx-site', depends_on: ['nginx-zone', 'nginx-catch-all', issue.id],
		name: APP, domain: DOMAIN, redirect_domains: [`www.${DOMAIN}`], root: `${CURRENT}/build`, port: APP_PORT,
	}));
	zap.service({ id: 'nginx', service: 'nginx', enabled: true, running: true, reload_on: ['nginx-zone', 'nginx-catch-all', 'nginx-site'], depends_on: ['nginx-site'] });
	zap.script(alpine_certbot_webroot({ ...cert, depends_on: [issue.id, 'nginx'] }));
};
