// A Debian (or Ubuntu) server brought up from its stock account with
// recipes alone: the account Zap connects as from then on, SSH locked to
// it, the ufw firewall, fail2ban's sshd jail, PostgreSQL from the project's
// apt repository, a fuz_app server run by Deno under a hardened systemd
// unit (its env file and bootstrap token), and nginx serving the app's
// build and proxying /api/ to it over a Let's Encrypt certificate issued
// behind the DNS preflight, then renewed through the webroot.
// Type-checked by `make typecheck`; docs/recipes.md explains each piece.
// It needs the internet (the PostgreSQL repository, Deno's release, a CA),
// which lab hosts don't have: the walk
// cmd/zap/testdata/script/recipes_debian_server_lab_systemd.txtar runs the
// same recipes on one.
//
// The first run connects as BOOTSTRAP_USER, the stock account (root, or
// the image's admin user): `zap apply --bootstrap`, then
// `zap apply --bootstrap --wetrun`. The SSH hardening then locks that
// account out; the wetrun reads the host again as DEPLOY_USER, and every
// later run connects as DEPLOY_USER.
import type { Builder } from '@zap-go/zap';
import { env_ref } from '@zap-go/zap/env_ref.ts';
import { debian_certbot_issue, debian_certbot_webroot } from '@zap-go/zap/recipes/certbot.ts';
import { deno_install } from '@zap-go/zap/recipes/deno.ts';
import { fail2ban_jail } from '@zap-go/zap/recipes/fail2ban.ts';
import { debian_web_firewall } from '@zap-go/zap/recipes/firewall.ts';
import { fuz_app_bootstrap_token, fuz_app_env_base, fuz_app_trusted_proxies } from '@zap-go/zap/recipes/fuz_app.ts';
import { debian_nginx_catch_all, debian_nginx_rate_limit_zone, debian_nginx_site } from '@zap-go/zap/recipes/nginx.ts';
import { postgres_apt_repo } from '@zap-go/zap/recipes/postgres.ts';
import { hardened_systemd_unit } from '@zap-go/zap/recipes/service.ts';
import { debian_ssh_hardening } from '@zap-go/zap/recipes/ssh.ts';

// One value, one home: each of these is read by more than one resource.
const DEPLOY = 'deploy';
const APP = 'app';
const HOME = `/home/${APP}`;
const CURRENT = `/srv/${APP}/current`;
const SHARED = `/srv/${APP}/shared`;
const ENV_FILE = `${SHARED}/.env`;
const SSH_PORT = 22;
const APP_PORT = 4040;
const DOMAIN = env_ref('APP_DOMAIN');

export default (zap: Builder) => {
	zap.target({
		host: zap.env('DEPLOY_HOST'),
		user: zap.env('DEPLOY_USER'),
		bootstrap_user: zap.env('BOOTSTRAP_USER'),
		package_manager: 'apt',
		service_manager: 'systemd',
	});
	zap.mask('DATABASE_URL', 'SECRET_COOKIE_KEYS');

	// The account every later run connects as, then SSH locked to it. Its
	// name is written out here (DEPLOY_USER must hold the same): the
	// drop-in could take a reference, but sudo -u takes only a name.
	zap.user({
		id: 'deploy-user',
		username: DEPLOY,
		shell: '/bin/bash',
		ssh_keys: { keys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleExampleExampleExampleExampleExampl ops'] },
		sudo: 'nopasswd',
	});
	const ssh = debian_ssh_hardening({ allow_users: [DEPLOY], port: SSH_PORT, depends_on: ['deploy-user'] });
	zap.file(ssh.dropin).service(ssh.service);

	const fw = debian_web_firewall({ ssh_port: SSH_PORT });
	zap.pkg(fw.pkg).firewall(fw.firewall);

	// Debian 12 keeps sshd's log in the journal alone: read it there.
	zap.pkg({ id: 'fail2ban-pkg', from: { apt: 'fail2ban' } });
	zap.pkg({ id: 'python3-systemd', from: { apt: 'python3-systemd' } });
	zap.file(fail2ban_jail({ port: SSH_PORT, backend: 'systemd', depends_on: ['fail2ban-pkg', 'python3-systemd', fw.firewall.id] }));
	zap.service({ id: 'fail2ban', service: 'fail2ban', enabled: true, running: true, restart_on: ['fail2ban-sshd'], depends_on: ['fail2ban-sshd'] });

	const pgdg = postgres_apt_repo();
	zap.apt_repo(pgdg);
	zap.pkg({ id: 'postgresql', from: { apt: 'postgresql-16' }, depends_on: [pgdg.id] });

	// The service account, its Deno, its env file (readable by it alone)
	// and its bootstrap token.
	zap.user({ id: 'app-user', username: APP, shell: '/usr/sbin/nologin' });
	zap.pkg({ id: 'unzip', from: { apt: 'unzip' } });
	zap.pkg({ id: 'curl', from: { apt: 'curl' } });
	zap.script(deno_install({ user: APP, version: '2.1.4', depends_on: ['app-user', 'unzip', 'curl'] }));
	zap.directory({ id: 'shared', path: SHARED, owner: APP, group: APP, mode: '750', depends_on: ['app-user'] });
	const token = fuz_app_bootstrap_token({ user: APP, path: `${SHARED}/bootstrap_token`, depends_on: ['shared'] });
	zap.script(token.script);
	zap.file(
		fuz_app_env_base({
			id: 'app-env',
			path: ENV_FILE,
			owner: APP,
			port: APP_PORT,
			database_url: zap.env('DATABASE_URL'),
			secret_cookie_keys: zap.env('SECRET_COOKIE_KEYS'),
			allowed_origins: `https://${DOMAIN}`,
			bootstrap_token_path: token.path,
			extra: [fuz_app_trusted_proxies()],
			depends_on: ['shared'],
		}),
	);

	// The server under a hardened unit, as the service account. Deno's JIT
	// needs memory that is written then run.
	zap.file(hardened_systemd_unit({
		id: 'app-unit', depends_on: ['app-user', 'deno'],
		name: APP, user: APP, command: `${HOME}/.deno/bin/deno`, command_args: `run --allow-net --allow-env --allow-read ${CURRENT}/server.js`,
		working_directory: CURRENT, env_file: ENV_FILE, read_write_paths: [SHARED], memory_deny_write_execute: false,
	}));
	zap.service({ id: 'app', service: APP, enabled: true, running: true, restart_on: ['app-unit', 'app-env'], depends_on: ['app-unit', 'app-env', 'postgresql'] });

	// The certificate: issued with nginx stopped, after the preflight, then
	// renewed through the webroot the nginx site serves. DEPLOY_HOST must
	// hold the host's address for the default expected_addresses.
	zap.pkg({ id: 'certbot-pkg', from: { apt: 'certbot' } });
	const cert = { domain: DOMAIN, extra_domains: [`www.${DOMAIN}`], email: zap.env('ACME_EMAIL') };
	const issue = debian_certbot_issue({ ...cert, depends_on: ['certbot-pkg', fw.firewall.id] });
	zap.script(issue);

	// nginx: the zone, the catch-all in place of Debian's default site, and
	// the site over TLS with the certificate, proxying /api/ to the app.
	// nginx depends on the issuance: a failed request skips it rather than
	// starting it without a certificate.
	zap.pkg({ id: 'nginx-pkg', from: { apt: 'nginx' } });
	zap.file(debian_nginx_rate_limit_zone({ id: 'nginx-zone', depends_on: ['nginx-pkg'] }));
	zap.file(debian_nginx_catch_all({ id: 'nginx-catch-all', depends_on: ['nginx-pkg'] }));
	zap.file(debian_nginx_site({
		id: 'nginx-site', depends_on: ['nginx-zone', 'nginx-catch-all', issue.id],
		name: APP, domain: DOMAIN, redirect_domains: [`www.${DOMAIN}`], root: `${CURRENT}/build`, port: APP_PORT,
	}));
	zap.service({ id: 'nginx', service: 'nginx', enabled: true, running: true, reload_on: ['nginx-zone', 'nginx-catch-all', 'nginx-site'], depends_on: ['nginx-site'] });
	zap.script(debian_certbot_webroot({ ...cert, depends_on: [issue.id, 'nginx'] }));
};
