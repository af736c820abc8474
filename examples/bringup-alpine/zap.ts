// An Alpine host brought up with recipes alone: SSH locked to the account
// Zap connects as, the nftables firewall with its boot service, fail2ban's
// sshd jail on nftables, PostgreSQL made by the init script's setup, and a
// Let's Encrypt certificate behind the DNS preflight. Type-checked (`make
// typecheck`), not run by a test.
import type { Builder } from '@zap-go/zap';
import { env_ref } from '@zap-go/zap/env_ref.ts';
import { alpine_certbot_issue, alpine_certbot_webroot } from '@zap-go/zap/recipes/certbot.ts';
import { fail2ban_jail } from '@zap-go/zap/recipes/fail2ban.ts';
import { alpine_web_firewall } from '@zap-go/zap/recipes/firewall.ts';
import { alpine_postgres_setup } from '@zap-go/zap/recipes/postgres.ts';
import { alpine_ssh_hardening } from '@zap-go/zap/recipes/ssh.ts';

const DEPLOY = 'deploy';
const SSH_PORT = 2222;
const DOMAIN = env_ref('APP_DOMAIN');

export default (zap: Builder) => {
	zap.target({
		host: zap.env('DEPLOY_HOST'),
		user: zap.env('DEPLOY_USER'),
		bootstrap_user: zap.env('BOOTSTRAP_USER'),
		package_manager: 'apk',
		service_manager: 'openrc',
	});

	zap.user({
		id: 'deploy-user',
		username: DEPLOY,
		shell: '/bin/sh',
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
	zap.service({ id: 'fail2ban', service: 'fail2ban', enabled: true, running: true, depends_on: ['fail2ban-pkg'] });
	zap.file(fail2ban_jail({ port: SSH_PORT, sshd_logpath: '/var/log/messages', banaction: 'nftables-multiport', depends_on: ['fail2ban-pkg'], triggers: ['fail2ban'] }));

	const pg = alpine_postgres_setup({ version: 16 });
	zap.pkg(pg.pkg).script(pg.setup).service(pg.service);

	zap.pkg({ id: 'certbot-pkg', from: { apk: 'certbot' } });
	const cert = { domain: DOMAIN, email: zap.env('ACME_EMAIL'), expected_addresses: [zap.env('DEPLOY_IPV4'), zap.env('DEPLOY_IPV6')] };
	const issue = alpine_certbot_issue({ ...cert, depends_on: ['certbot-pkg', fw.firewall.id] });
	zap.script(issue);
	zap.script(alpine_certbot_webroot({ ...cert, depends_on: [issue.id] }));
};
