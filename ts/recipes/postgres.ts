// PostgreSQL's own installation, by family. On Debian and Ubuntu the
// PostgreSQL project's apt repository (postgres_apt_repo) gives current
// major versions, and the package creates and starts its cluster. On Alpine
// the package leaves the cluster to be made: alpine_postgres_setup installs
// it, runs the init script's setup once, and keeps the service running.
// The database and role themselves are zap.database's.

import type { AptRepoSpec, PackageSpec, ScriptSpec, ServiceSpec } from '../types.ts';
import { single_quote } from '../shell.ts';

/** Where the PostgreSQL project publishes its apt signing key. */
export const POSTGRES_APT_KEY_URL = 'https://www.postgresql.org/media/keys/ACCC4CF8.asc';

/** The options of postgres_apt_repo. */
export interface PostgresAptRepoOptions {
	/** The id of the apt_repo resource (default 'pgdg'); packages from it
	 * depend on it. */
	id?: string;
	/** The signing key's blake3 pin, 64 lowercase hex. Left out, the pin is
	 * tracked in zap.lock on first fetch. */
	key_blake3?: string;
	/** The repository's components (default ['main']). */
	components?: string[];
}

/**
 * The PostgreSQL project's apt repository (apt.postgresql.org): its signing
 * key from POSTGRES_APT_KEY_URL and the line for the host's own release
 * ($VERSION_CODENAME-pgdg). Debian and Ubuntu only, as its name says.
 * Declare the server as a package that depends on it:
 * `{ id: 'postgresql', from: { apt: 'postgresql-16' }, depends_on: ['pgdg'] }`.
 */
export function postgres_apt_repo(options: PostgresAptRepoOptions = {}): AptRepoSpec {
	const components = options.components ?? ['main'];
	components.forEach((c, i) => {
		if (!/^[a-z0-9][a-z0-9.+-]*$/.test(c)) {
			throw new Error(`postgres_apt_repo: components[${i}]: ${JSON.stringify(c)} is not a component name`);
		}
	});
	const spec: AptRepoSpec = {
		id: options.id ?? 'pgdg',
		key_url: POSTGRES_APT_KEY_URL,
		source: `deb https://apt.postgresql.org/pub/repos/apt $VERSION_CODENAME-pgdg ${components.join(' ')}`,
	};
	if (options.key_blake3 !== undefined) {
		spec.key_blake3 = options.key_blake3;
	}
	return spec;
}

/** The options of alpine_postgres_setup. */
export interface AlpinePostgresSetupOptions {
	/** The major version, as Alpine names its packages: 16 gives
	 * postgresql16. */
	version: number;
	/** The cluster's data directory (default
	 * /var/lib/postgresql/<version>/data, where Alpine's init script makes
	 * it). Takes a reference. */
	data_dir?: string;
	/** The prefix of the three ids (default 'postgres'): `<id>-pkg`,
	 * `<id>-setup` and `<id>-service`. */
	id?: string;
}

/** What alpine_postgres_setup returns:
 * `zap.pkg(pg.pkg).script(pg.setup).service(pg.service)`. */
export interface AlpinePostgresSetup {
	/** postgresql<version>, from apk. */
	pkg: PackageSpec;
	/** `rc-service postgresql setup`, run once: its check is the cluster's
	 * PG_VERSION file. */
	setup: ScriptSpec;
	/** postgresql, enabled and running, after the setup. */
	service: ServiceSpec;
}

/**
 * PostgreSQL on Alpine: the package, the cluster made once by the init
 * script's setup command (which runs initdb as postgres), and the service.
 * A version that isn't a whole number from 10 on is refused.
 */
export function alpine_postgres_setup(options: AlpinePostgresSetupOptions): AlpinePostgresSetup {
	const version = options.version;
	if (!Number.isInteger(version) || version < 10) {
		throw new Error(`alpine_postgres_setup: version: ${String(version)} is not a PostgreSQL major version (10 on)`);
	}
	const id = options.id ?? 'postgres';
	const data_dir = options.data_dir ?? `/var/lib/postgresql/${version}/data`;
	const pkg: PackageSpec = { id: `${id}-pkg`, from: { apk: `postgresql${version}` } };
	const setup: ScriptSpec = {
		id: `${id}-setup`,
		check: `sudo test -s ${single_quote(`${data_dir}/PG_VERSION`)}`,
		run: 'sudo rc-service postgresql setup',
		depends_on: [pkg.id],
	};
	const service: ServiceSpec = {
		id: `${id}-service`,
		service: 'postgresql',
		enabled: true,
		running: true,
		depends_on: [setup.id],
	};
	return { pkg, setup, service };
}
