// An example of a whole server: a Debian host reached over SSH that runs an
// application behind nginx, with its database, firewall and deploy. It is
// type-checked (`make typecheck`) and evaluated through zap config validate
// by a test (cmd/zap/testdata/script/examples_evaluate_demo.txtar), but not
// applied to a host by one: it needs the internet (the PostgreSQL apt
// repository, zig's and ghostty's releases, deno's installer). Every kind in
// it is one this version's stages read and act on, and zap deploy ships its
// deploy block as a release (docs/deploy.md).
//
// The builder type is a type-only import, stripped by zap-eval. env_ref is a
// value import: zap-eval serves it from the copy of @zap-go/zap it carries,
// or from node_modules/@zap-go/zap when the project links one.
import type { Builder, FileSpec } from '@zap-go/zap';
import { env_ref } from '@zap-go/zap/env_ref.ts';

// Values two resources must agree on live in one constant each.
const APP = 'app';
const APP_DIR = `/srv/${APP}`;
const ENV_FILE = `${APP_DIR}/shared/.env`;
const DOMAIN = env_ref('APP_DOMAIN');

// A module's own helper: a file resource whose content is a template, its
// one per-environment value held to a kind.
function nginx_site(domain: string, port: number): FileSpec {
	return {
		id: 'nginx-site',
		path: `/etc/nginx/sites-enabled/${APP}`,
		content: {
			type: 'template',
			template: 'server {\n\tserver_name {{domain}};\n\tlocation / { proxy_pass http://127.0.0.1:{{port}}; }\n}\n',
			vars: { domain, port },
			kinds: { domain: 'domain', port: 'port' },
		},
		mode: '644',
		owner: 'root',
		group: 'root',
		validate: 'sudo nginx -t',
		triggers: ['nginx'],
		depends_on: ['nginx-pkg'],
	};
}

export default async (zap: Builder) => {
	zap.target({
		host: zap.env('DEPLOY_HOST'),
		user: zap.env('DEPLOY_USER'),
		bootstrap_user: zap.env('BOOTSTRAP_USER'),
		home: `/home/${APP}`,
		package_manager: 'apt',
		service_manager: 'systemd',
	});
	zap.mask('SENTRY_DSN').unmask('APP_DOMAIN');

	zap
		.pkg({ id: 'nginx-pkg', from: { apt: 'nginx', apk: 'nginx' } })
		.pkg({ id: 'ripgrep', from: { apt: 'ripgrep' }, check: '/usr/bin/rg' })
		.apt_repo({
			id: 'pgdg',
			key_url: 'https://www.postgresql.org/media/keys/ACCC4CF8.asc',
			source: 'deb https://apt.postgresql.org/pub/repos/apt $VERSION_CODENAME-pgdg main',
		})
		.pkg({ id: 'postgresql', from: { apt: 'postgresql-16' }, depends_on: ['pgdg'] });

	zap.user({
		id: 'app-user',
		username: APP,
		shell: '/bin/bash',
		home_mode: '711',
		ssh_keys: { keys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleExampleExampleExampleExampleExampl ops'] },
		sudo: { mode: 'nopasswd', commands: ['/usr/bin/systemctl restart app'] },
		groups: ['www-data'],
	});

	zap.directory({ id: 'app-dir', path: APP_DIR, mode: '755', owner: APP, group: APP, depends_on: ['app-user'] });
	zap.directory({ id: 'app-shared', path: `${APP_DIR}/shared`, mode: '750', owner: APP, depends_on: ['app-dir'] });

	zap.file({
		id: 'app-env',
		path: ENV_FILE,
		content: {
			type: 'template',
			template: "DATABASE_URL='{{db}}'\nSENTRY_DSN='{{dsn}}'\n",
			vars: { db: `postgres://${APP}@/${APP}?host=/run/postgresql`, dsn: zap.env('SENTRY_DSN') },
			kinds: { db: 'quoted', dsn: 'quoted' },
		},
		mode: '600',
		owner: APP,
		triggers: ['app'],
		depends_on: ['app-shared'],
	});
	zap.file(nginx_site(DOMAIN, 8080));
	zap.file({
		id: 'motd',
		path: '/etc/motd',
		content: { type: 'inline', content: 'managed by zap\n' },
	});
	zap.file({
		id: 'zig',
		path: '/opt/zig',
		content: {
			type: 'remote',
			url: 'https://ziglang.org/download/0.13.0/zig-linux-x86_64-0.13.0.tar.xz',
			extract: { type: 'tar.xz', strip_components: 1 },
		},
	});
	zap.link({ id: 'zig-bin', path: '/usr/local/bin/zig', target: '/opt/zig/zig', depends_on: ['zig'] });

	zap.service({ id: 'nginx', service: 'nginx', enabled: true, running: true, depends_on: ['nginx-pkg'] });
	zap.service({ id: 'app', service: 'app', enabled: true, restart_on: ['app-env'] });

	zap.database({
		id: 'db',
		engine: 'postgresql',
		database_name: APP,
		username: APP,
		auth: { hosts: ['127.0.0.1/32', '::1/128'] },
		depends_on: ['postgresql'],
	});

	zap.swap({ id: 'swap', size: '2G' });
	zap.firewall({
		id: 'firewall',
		backend: 'ufw',
		allow: ['OpenSSH', { port: 80 }, { port: 443, proto: 'tcp' }],
		default_incoming: 'deny',
	});

	zap.installer({ id: 'deno', url: 'https://deno.land/install.sh', check: '~/.deno/bin/deno', shell: 'sh -s -- --yes' });
	zap.build({
		id: 'ghostty',
		source: {
			type: 'remote',
			url: 'https://release.files.ghostty.org/1.1.3/ghostty-1.1.3.tar.gz',
			extract: { type: 'tar.gz', strip_components: 1 },
			verify: { scheme: 'minisign', public_key: 'RWQlAjJC23149WL2sEpT/l0QKy7hMIFhYdQOFy0Z7z7PbneUgvlsnYcV' },
		},
		run: 'zig build -p $HOME/.local -Doptimize=ReleaseFast',
		output: '~/.local/bin/ghostty',
		env: { ZIG_GLOBAL_CACHE_DIR: '/tmp/zig-cache' },
		depends_on: ['zig-bin'],
	});

	zap.script({
		id: 'migrate',
		check: `test -f ${APP_DIR}/migrated`,
		run: `./bin/migrate && touch ${APP_DIR}/migrated`,
		cwd: `${APP_DIR}/current`,
		env: { DATABASE_URL: `postgres://${APP}@/${APP}?host=/run/postgresql` },
		depends_on: ['db'],
	});
	zap.pipeline({
		id: 'warm-cache',
		steps: [
			{ id: 'fetch', run: 'curl -fsS https://localhost/ >/dev/null', name: 'hit the front page' },
			{ id: 'report', run: 'echo warmed' },
		],
	});
	zap.verify({
		id: 'nginx-ok',
		assertions: [
			{ type: 'path_exists', path: '/etc/nginx/sites-enabled/app', file_type: 'file', mode: '644', owner: 'root' },
			{ type: 'command', run: 'sudo nginx -t 2>&1', expect: 'syntax is ok' },
		],
		depends_on: ['nginx-site'],
	});

	zap.deploy({
		path: APP_DIR,
		build: 'npm run build',
		artifacts: ['build', 'package.json'],
		shared: ['.env'],
		prepare: ['npm ci --omit=dev'],
		service: 'app',
		releases: 5,
		health: { domain: DOMAIN, path: '/health', attempts: 10, interval_ms: 1000 },
	});
};
