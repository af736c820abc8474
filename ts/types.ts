// The shape of a Zap config: the builder a config's default export receives,
// and the fields of the target, of every resource kind and of the deploy
// block, named as they are in the declaration JSON the config evaluates to.
//
// These are types only. A config imports them with `import type`, which the
// evaluator strips, so a config that uses them needs nothing installed to
// run. Where a field "takes a reference", a string zap.env (or env_ref)
// returned may stand in it or be interpolated into it; anywhere else a
// reference fails the evaluation, naming the field. The types can't tell the
// two apart (a reference is a string), so the doc comments say which.

/** The text form of a reference: the string `zap.env('NAME')` returns. It is
 * an opaque marker; concatenate and interpolate it, never slice it or change
 * its case. */
export type Ref = string;

/** A package manager a target may declare. pacman and brew parse but have
 * no backend yet: their packages detect as undetermined. */
export type PackageManager = 'apt' | 'apk' | 'pacman' | 'brew';

/** A service manager a target may declare. launchd parses and has no
 * backend: its services detect as undetermined. */
export type ServiceManager = 'systemd' | 'openrc' | 'launchd';

/** The machine Zap runs on. A local target takes none of the remote fields. */
export interface LocalTarget {
	local: true;
	/** Which entry of a package's `from` applies here, and how packages are
	 * installed and queried. */
	package_manager?: PackageManager;
	/** Required when the config declares a service, a file with triggers,
	 * or deploy.service. */
	service_manager?: ServiceManager;
}

/** A host reached over SSH with your own ssh and keys. host, user and
 * bootstrap_user are connection context: they move the plan, never a
 * resource's hash. */
export interface RemoteTarget {
	local?: false;
	/** The host name or address ssh connects to. Takes a reference. */
	host: string;
	/** The account ssh connects as; without it ssh chooses. Takes a
	 * reference. */
	user?: string;
	/** The SSH port, 1 to 65535. */
	port?: number;
	/** An identity file passed to ssh. Takes no reference. */
	identity?: string;
	/** The connecting user's home on the host, absolute. A remote path that
	 * uses ~ or $HOME with no home declared is undetermined. */
	home?: string;
	/** The account the first, --bootstrap, run connects as, before the
	 * config's own hardening changes who may log in. Takes a reference. */
	bootstrap_user?: string;
	package_manager?: PackageManager;
	service_manager?: ServiceManager;
}

/** The one target of a config. */
export type Target = LocalTarget | RemoteTarget;

/** The fields every resource takes. */
export interface Common {
	/** A stable name for the resource, unique in the config: what
	 * depends_on, triggers, restart_on and reload_on refer to, and what Zap's
	 * plans, reports and events call it. Takes no reference. */
	id: string;
	/** A display name for output. */
	name?: string;
	/** Ids of resources that must apply before this one. Declaration order
	 * is not an order: without an edge, resources apply by id. */
	depends_on?: string[];
}

/** An OS package, installed through the target's package manager (declared
 * with zap.pkg; its type in the declaration is "package"). */
export interface PackageSpec extends Common {
	/** The package's name for each manager, such as {apt: 'ripgrep'}. A name
	 * is one word in the manager's syntax and takes no reference. */
	from: Partial<Record<PackageManager, string>>;
	/** A custom check: a path (beginning /, ~ or $HOME; tested for existence,
	 * takes a reference) or a command (exit 0 means installed; takes no
	 * reference). The default is the manager's own query. */
	check?: string;
}

/** An apt repository: its signing key, pinned, and its sources-list entry. */
export interface AptRepoSpec extends Common {
	/** Where Zap fetches the signing key (https://). Takes a reference. */
	key_url: string;
	/** The key's pin: 64 lowercase hex of the blake3 of its bytes. Without it
	 * the pin is tracked in zap.lock. */
	key_blake3?: string;
	/** The deb or deb-src line. It is read by a shell with /etc/os-release
	 * sourced, so $VERSION_CODENAME works; signed-by= is added by Zap. Takes
	 * no reference. */
	source: string;
	/** Where the key is stored (default /usr/share/keyrings/<id>.asc). */
	key_path?: string;
	/** The .list file (default /etc/apt/sources.list.d/<id>.list). */
	list_file?: string;
}

/** A command guarded by a check: run executes only when check fails. */
export interface ScriptSpec extends Common {
	/** A command whose exit 0 means the script is already applied. Make it
	 * precise: it carries the whole idempotency contract. Takes a reference. */
	check: string;
	/** The command run when check fails. Takes a reference. */
	run: string;
	/** The working directory of check and run: an absolute path, as written.
	 * Takes no reference. */
	cwd?: string;
	/** Extra environment for check and run. Values take references and may
	 * hold any byte but NUL; names don't begin with __zap_. */
	env?: Record<string, string>;
}

/** Software installed by piping a downloaded script into a shell, once. */
export interface InstallerSpec extends Common {
	/** The install script's https:// URL. */
	url: string;
	/** A path (absolute, or beginning ~ or $HOME) whose existence means the
	 * software is installed. */
	check: string;
	/** The command the script is piped into (default sh), one line, such as
	 * 'bash -s -- --yes'. */
	shell?: string;
}

/** A user's authorized_keys: copied from another account's, or listed. */
export type SshKeys =
	| { /** Another account whose authorized_keys are copied. */ copy_from: string }
	| { /** The public keys, one authorized_keys line each. */ keys: string[] };

/** A sudo mode: with or without the user's password. */
export type SudoMode = 'nopasswd' | 'password';

/** A user's sudo grant: every command in a mode, listed commands in a mode,
 * or false to remove the user's sudoers file. */
export type Sudo = SudoMode | { mode: SudoMode; commands: string[] } | false;

/** A Unix account. An attribute left out is not managed. */
export interface UserSpec extends Common {
	/** The account name: a lowercase letter or _, then lowercase letters,
	 * digits, _ or -, optionally ending in $. Not root. */
	username: string;
	/** The login shell, such as /bin/bash. Takes no reference. */
	shell?: string;
	/** The octal mode of /home/<username>, such as '711'. */
	home_mode?: string;
	/** The account's authorized_keys, authoritative: keys not declared are
	 * removed. Setting it also makes the password field *. */
	ssh_keys?: SshKeys;
	/** A user's sudo grant: every command in a mode, listed commands in a
	 * mode, or false to remove the user's sudoers file. */
	sudo?: Sudo;
	/** Supplementary groups the user is added to. Additive: groups not
	 * listed are left alone. */
	groups?: string[];
}

/** A directory, made with its missing parents. */
export interface DirectorySpec extends Common {
	/** Absolute or under ~. Takes a reference. */
	path: string;
	/** The octal mode, such as '755'. A string, not a number. */
	mode?: string;
	/** The owner's account name (not a uid). */
	owner?: string;
	/** The group's name (not a gid). */
	group?: string;
}

/** The form a template variable's value is held to where it lands: a DNS
 * name, a port number, one word, or text safe inside quotes. */
export type TemplateKind = 'domain' | 'port' | 'word' | 'quoted';

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Content written as declared. */
export interface InlineContent {
	type: 'inline';
	/** The file's bytes, as text. Takes no reference: a per-environment value
	 * goes through a template variable. */
	content: string;
	/** The project file the content was read from when the config was
	 * evaluated, relative to the project: what project_text,
	 * project_template and project_bytes give, never written by hand. The
	 * review names it as the content's source. */
	file?: string;
}

/** Content made from a {{name}} template. */
export interface TemplateContent {
	type: 'template';
	/** The body. Every {{name}} placeholder needs a variable, and every
	 * variable a placeholder. */
	template: string;
	/** The value of each placeholder. A string takes references; any other
	 * value is substituted as its compact JSON and takes none. */
	vars?: Record<string, JsonValue>;
	/** The kind each named variable's value must render to. */
	kinds?: Record<string, TemplateKind>;
	/** The project file the content was read from when the config was
	 * evaluated, relative to the project: what project_text,
	 * project_template and project_bytes give, never written by hand. The
	 * review names it as the content's source. */
	file?: string;
}

/** Content copied from a file already on the target. */
export interface SourceContent {
	type: 'source';
	/** Absolute or under ~, on the target. Takes a reference. */
	path: string;
}

/** How fetched bytes are unpacked: placed as they are, or extracted from a
 * tarball, optionally dropping leading path components. */
export type Extract =
	| { /** none, tar.xz or tar.gz. */ type: 'none' }
	| { type: 'tar.xz' | 'tar.gz'; /** How many leading directories of each archive path to drop,
	 * as tar's --strip-components; a tar extract only, 0 or more. */ strip_components?: number };

/** Content fetched from a URL and pinned by blake3. */
export interface RemoteContent {
	type: 'remote';
	/** https:// (http:// only to a loopback host). Takes a reference. */
	url: string;
	/** How the fetched bytes are unpacked: 'none' takes them as they are. */
	extract?: Extract;
	/** A bearer token for a private byte host, typically a reference: a
	 * secret by this use, resolved at the fetch and never hashed. */
	auth?: string;
	/** A vendored pin, 64 lowercase hex; without it the pin is tracked in
	 * zap.lock. */
	blake3?: string;
}

/** A project file's bytes, placed as they are: what project_bytes gives. */
export interface BytesContent {
	type: 'bytes';
	/** A project file's bytes in standard padded base64, placed as they
	 * are: what project_bytes gives. */
	base64: string;
	/** The project file the content was read from when the config was
	 * evaluated, relative to the project: what project_text,
	 * project_template and project_bytes give, never written by hand. The
	 * review names it as the content's source. */
	file: string;
}

/** Where a file's content comes from. */
export type Content = InlineContent | TemplateContent | SourceContent | RemoteContent | BytesContent;

/** A regular file, written whole. */
export interface FileSpec extends Common {
	/** Takes a reference and ~. */
	path: string;
	/** Where the file's text comes from, by its type. */
	content: Content;
	/** The octal mode, such as '644'. A string, not a number. */
	mode?: string;
	/** The account that owns the file, by name; left as it is when unset. */
	owner?: string;
	/** The file's group, by name; left as it is when unset. */
	group?: string;
	/** Ids of services restarted or reloaded (as each declares) when this
	 * file changes. */
	triggers?: string[];
	/** A command that must exit 0 after the write, such as 'sudo nginx -t';
	 * when it fails the old file is put back. Not on remote content. */
	validate?: string;
}

/** A symbolic link. */
export interface LinkSpec extends Common {
	/** Where the link is. Takes a reference and ~. */
	path: string;
	/** What the link points to, resolved the same way. */
	target: string;
}

/** A service of the target's service manager. */
export interface ServiceSpec extends Common {
	/** The name the manager knows, one word, such as 'nginx'. Takes no
	 * reference. */
	service: string;
	/** Whether it starts at boot (default true). */
	enabled?: boolean;
	/** Whether it runs now; left out, runtime state isn't managed. */
	running?: boolean;
	/** Ids whose change restarts the service when it is running. */
	restart_on?: string[];
	/** Ids whose change reloads the service when it is running. */
	reload_on?: string[];
}

/** A pg_hba.conf authentication method Zap can write on a plain TCP host
 * line. trust, peer, cert, ldap, radius, sspi and bsd are refused. */
export type DatabaseAuthMethod = 'scram-sha-256' | 'md5' | 'password' | 'gss' | 'ident' | 'pam' | 'reject';

/** The pg_hba.conf rules a database adds: the client addresses and their
 * method. */
export interface DatabaseAuth {
	/** Client addresses with their prefix length, such as '127.0.0.1/32';
	 * at least one. */
	hosts: string[];
	/** How those clients authenticate: scram-sha-256, md5, password, gss,
	 * ident, pam or reject. Default 'scram-sha-256'. */
	method?: DatabaseAuthMethod;
}

/** A PostgreSQL database and the role that owns it. */
export interface DatabaseSpec extends Common {
	/** The database server: 'postgresql' is the only engine. */
	engine: 'postgresql';
	/** Takes a reference. */
	database_name: string;
	/** The owning role. Takes a reference. */
	username: string;
	/** The pg_hba.conf rules to add; without it, the role is reached over
	 * the Unix socket by the OS account of its name. */
	auth?: DatabaseAuth;
}

/** A swap file, listed in /etc/fstab. */
export interface SwapSpec extends Common {
	/** The size when the file is made, such as '2G'. Not compared later. */
	size: string;
	/** Absolute, no whitespace, no ~ and no reference (default /swapfile). */
	path?: string;
}

/** A default firewall policy. */
export type Policy = 'allow' | 'deny' | 'reject';

/** A firewall allow rule: a named ufw application profile (such as
 * 'OpenSSH'), or a port. */
export type AllowRule = string | { port: number; proto?: 'tcp' | 'udp' | 'any' };

/** The firewall: default policies and allow rules, which are additive. */
export interface FirewallSpec extends Common {
	/** nftables needs an enabled service 'nftables' in the same config. */
	backend: 'ufw' | 'nftables';
	/** The traffic let in, each a port ({port: 53, proto: 'udp'}; proto
	 * tcp, udp or any, default tcp) or a ufw application profile by name.
	 * Rules not listed are left in place. */
	allow: AllowRule[];
	/** Default 'deny'. */
	default_incoming?: Policy;
	/** Default 'allow'. */
	default_outgoing?: Policy;
}

/** Asserts that a path exists, and optionally its type, mode, owner and
 * non-emptiness (a link is followed). */
export interface PathExistsAssertion {
	type: 'path_exists';
	/** Absolute, as written; takes no reference. */
	path: string;
	/** The path must be a file or a directory (a link is followed). */
	file_type?: 'file' | 'directory';
	/** The octal mode, such as '644'. */
	mode?: string;
	/** The account that must own the path, by name. */
	owner?: string;
	/** Whether the size must be above zero (default false). */
	not_empty?: boolean;
}

/** Asserts that a command exits 0, optionally printing a substring. */
export interface CommandAssertion {
	type: 'command';
	/** The command that must exit 0. Takes references. */
	run: string;
	/** A substring stdout must hold. */
	expect?: string;
}

/** One check of a verify, read by its type. */
export type Assertion = PathExistsAssertion | CommandAssertion;

/** A list of assertions checked at detection and again, in order, on a
 * wetrun. */
export interface VerifySpec extends Common {
	/** The checks, each read by its type; every one must hold. */
	assertions: Assertion[];
}

/** One step of a pipeline. */
export interface PipelineStep {
	/** Unique within the pipeline. */
	id: string;
	/** The command, run by sh as the login user; a failing one stops the
	 * pipeline. Takes references. */
	run: string;
	/** A label for output, one line. */
	name?: string;
}

/** A list of steps run in declared order on every wetrun; a pipeline never
 * reads converged. A pipeline-level env, and a step's cwd, env or
 * depends_on, are refused: write them into the step's run. */
export interface PipelineSpec extends Common {
	/** The commands, run in the order listed on every wetrun. */
	steps: PipelineStep[];
	/** Steps run one at a time: 1 is the only value. */
	max_concurrency?: 1;
}

/** A minisign check of a build source before it is cached or pinned. */
export interface SourceVerify {
	/** The signature scheme: 'minisign' is the only one. */
	scheme: 'minisign';
	/** The key's 56 base64 characters, beginning RW. */
	public_key: string;
	/** Default: the source URL with .minisig added to its path. Takes a
	 * reference. */
	signature_url?: string;
}

/** Where a build's source archive comes from. */
export interface BuildSource {
	/** Where the archive comes from: 'remote' (a URL) is the only source. */
	type: 'remote';
	/** Takes a reference. */
	url: string;
	/** How the fetched bytes are unpacked before the build runs. */
	extract?: Extract;
	/** A bearer token for a private byte host, typically a reference. */
	auth?: string;
	/** A minisign signature the archive must carry before it is cached or
	 * pinned. */
	verify?: SourceVerify;
	/** A vendored pin; without it the pin is tracked in zap.lock. */
	blake3?: string;
}

/** A tool built from a pinned source archive. */
export interface BuildSpec extends Common {
	/** The archive the build starts from, fetched and pinned. */
	source: BuildSource;
	/** The build command, run unprivileged in the extracted source. */
	run: string;
	/** A path that exists exactly when the build is installed. */
	output: string;
	/** Absolute, or relative to the extracted source (the default). */
	cwd?: string;
	/** Extra environment for run. Values take references. */
	env?: Record<string, string>;
}

/** The health gate of a deploy: https://<domain><path> polled from your
 * machine after the restart, then /ready, trusting your system's
 * certificate store (SSL_CERT_FILE or SSL_CERT_DIR add a CA), following no
 * redirect. */
export interface DeployHealth {
	/** A host name, or a host name and a port (app.example.net:8443).
	 * Takes a reference; not blank. */
	domain: string;
	/** The path polled (default /). /ready makes one check the gate. */
	path?: string;
	/** How many polls before the deploy fails and rolls back. */
	attempts?: number;
	/** Milliseconds between polls. */
	interval_ms?: number;
}

/** How `zap deploy` ships a release of the application to the target. */
export interface DeploySpec {
	/** The app's directory on the target, absolute: releases/, shared/ and
	 * current live there. */
	path: string;
	/** The local build command run before packing. */
	build?: string;
	/** Paths of the checkout packed into the release archive. None begins
	 * with - or @. */
	artifacts: string[];
	/** Plain relative names linked from <path>/shared/ into each release. */
	shared?: string[];
	/** Commands run in the new release before the swap. */
	prepare?: string[];
	/** The service restarted after the swap. */
	service?: string;
	/** How many releases are kept, 2 at least. */
	releases?: number;
	/** The HTTPS check polled after the restart; a failing one rolls the
	 * release back. Without it the swap alone decides. */
	health?: DeployHealth;
}

/** The builder a config's default export receives. Every method but env
 * records a declaration and returns the builder, so calls chain. A call
 * made after the config's function has finished (from a promise it didn't
 * await) fails the evaluation. */
export interface Builder {
	/** The one target of the config. A second call fails. */
	target(target: Target): Builder;
	/** A reference to the operator's environment variable `name`, resolved
	 * when Zap acts, never a value the config can read. */
	env(name: string): Ref;
	/** Treat these variables as secrets, masked out of every output. Names,
	 * not references. */
	mask(...names: string[]): Builder;
	/** Treat these variables as plain values. Names, not references. */
	unmask(...names: string[]): Builder;
	/** An OS package (type "package" in the declaration). */
	pkg(spec: PackageSpec): Builder;
	apt_repo(spec: AptRepoSpec): Builder;
	script(spec: ScriptSpec): Builder;
	installer(spec: InstallerSpec): Builder;
	user(spec: UserSpec): Builder;
	directory(spec: DirectorySpec): Builder;
	file(spec: FileSpec): Builder;
	link(spec: LinkSpec): Builder;
	service(spec: ServiceSpec): Builder;
	database(spec: DatabaseSpec): Builder;
	swap(spec: SwapSpec): Builder;
	firewall(spec: FirewallSpec): Builder;
	verify(spec: VerifySpec): Builder;
	pipeline(spec: PipelineSpec): Builder;
	build(spec: BuildSpec): Builder;
	/** How `zap deploy` ships the application. A second call fails. */
	deploy(spec: DeploySpec): Builder;
}

/** A config module's default export. */
export type Config = (zap: Builder) => void | Promise<void>;
