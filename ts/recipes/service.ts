// A long-running service under a dedicated user, hardened: a systemd unit
// for Debian and an OpenRC init script for Alpine. The two artifacts share
// nothing but their options' shape (a whole-artifact difference is two
// functions), and each is inline content: every option is written out.

import { has_ref } from '../env_ref.ts';
import { placed } from '../placed.ts';
import { checked_user, single_quote } from '../shell.ts';
import type { FileSpec } from '../types.ts';

/** The options both hardened_systemd_unit and hardened_openrc_service take.
 * None takes a reference: the result is a file's inline content. */
export interface HardenedServiceOptions {
	/** The file resource's id (default '<name>-unit' for the systemd unit,
	 * '<name>-initd' for the OpenRC script). Name it in the service's
	 * restart_on. */
	id?: string;
	/** Ids the file applies after, such as the service user's. */
	depends_on?: string[];
	/** Ids of services restarted when the file changes (or name the file in
	 * the service's restart_on). */
	triggers?: string[];
	/** The service's name, as the service manager knows it: a lowercase
	 * letter or digit, then lowercase letters, digits, _ . -. The file is
	 * /etc/systemd/system/<name>.service or /etc/init.d/<name>. */
	name: string;
	/** One line saying what the service is (default: the name). No line
	 * break, " \ $ ` or %. */
	description?: string;
	/** The account the service runs as, written out (never root, never a
	 * uid): see sudo_as_user for the forms refused. */
	user: string;
	/** Its group (default: the user's name). */
	group?: string;
	/** The program run, an absolute path of letters, digits and . _ - / +
	 * (a plain word, as OpenRC's start line reads it). */
	command: string;
	/** The program's arguments, shell words by design: written after the
	 * command as they are, read by the shell of the OpenRC start line and by
	 * systemd's ExecStart= word splitting (which reads quotes the same for
	 * plain words and '…'). Quote a value in them with single_quote. No line
	 * break; under systemd a % is written %% for you. */
	command_args?: string;
	/** The working directory, absolute, a plain word (default: none, which
	 * is / under both managers). */
	working_directory?: string;
	/** An env file of NAME=VALUE lines (recipes.md's format), absolute, a
	 * plain word, readable by `user`. systemd reads it with EnvironmentFile=;
	 * under OpenRC the init script never sources it: its reader checks
	 * every line as the service user in start_pre, under a 10-second
	 * timeout, and the daemon's own process exports the values before it
	 * execs the command. */
	env_file?: string;
	/** Paths the service may write, absolute plain words (systemd:
	 * ReadWritePaths=, as the rest of the file system is read-only to it;
	 * OpenRC: documentation only, as OpenRC has no such fence). */
	read_write_paths?: string[];
	/** Let the service bind ports below 1024 (CAP_NET_BIND_SERVICE as an
	 * ambient capability under systemd). Default false. Under OpenRC the
	 * service user can't: serve on a high port behind nginx. */
	bind_low_ports?: boolean;
	/** systemd's MemoryDenyWriteExecute=. Default true; a JIT runtime
	 * (Deno, Node.js, the JVM) needs false. */
	memory_deny_write_execute?: boolean;
	/** Services started first: systemd unit names (After= and Wants=) such
	 * as 'postgresql.service', or OpenRC service names (`after`, `want`)
	 * such as 'postgresql'. Plain words. */
	after?: string[];
}

/** The options checked, defaults filled. */
interface Service {
	name: string;
	description: string;
	user: string;
	group: string;
	command: string;
	args: string;
	cwd: string | null;
	env_file: string | null;
	rw: string[];
	low_ports: boolean;
	mdwe: boolean;
	after: string[];
}

const PLAIN_PATH = /^\/[A-Za-z0-9._+/-]*$/;

function word(label: string, field: string, value: unknown, pattern: RegExp, want: string): string {
	if (typeof value !== 'string') throw new TypeError(`${label}: ${field} is a string, not ${value === undefined ? 'missing' : typeof value}`);
	if (has_ref(value)) throw new Error(`${label}: ${field} takes no reference (the unit is inline content): write it out`);
	if (!pattern.test(value)) throw new Error(`${label}: ${field} ${JSON.stringify(value)} is not ${want}`);
	return value;
}

function service_options(label: string, o: HardenedServiceOptions): Service {
	if (o === null || typeof o !== 'object') throw new TypeError(`${label}: takes an options object`);
	const name = word(label, 'name', o.name, /^[a-z0-9][a-z0-9_.-]{0,63}$/, 'a service name (lowercase letters, digits, _ . -)');
	const user = checked_user(label, o.user);
	if (user === 'root' || user === '0') throw new Error(`${label}: the user is root: a hardened service runs as an account of its own`);
	word(label, 'user', user, /^[a-z_][a-z0-9_-]{0,31}$/, 'an account name (lowercase letters, digits, _ -)');
	const group = word(label, 'group', o.group ?? user, /^[a-z_][a-z0-9_-]{0,31}$/, 'a group name (lowercase letters, digits, _ -)');
	const description = word(label, 'description', o.description ?? name, /^[^\r\n\0"\\$`%]{1,200}$/, 'one line without " \\ $ ` or %');
	const command = word(label, 'command', o.command, PLAIN_PATH, 'an absolute path of letters, digits and . _ - / +');
	const args = o.command_args === undefined ? '' : word(label, 'command_args', o.command_args, /^[^\r\n\0]*$/, 'one line');
	const path = (field: string, v: string | undefined): string | null => (v === undefined ? null : word(label, field, v, PLAIN_PATH, 'an absolute path of letters, digits and . _ - / +'));
	const rw = (o.read_write_paths ?? []).map((p, i) => word(label, `read_write_paths[${i}]`, p, PLAIN_PATH, 'an absolute path of letters, digits and . _ - / +'));
	const after = (o.after ?? []).map((s, i) => word(label, `after[${i}]`, s, /^[A-Za-z0-9][A-Za-z0-9_.@:-]*$/, 'a service name'));
	return {
		name,
		description,
		user,
		group,
		command,
		args,
		cwd: path('working_directory', o.working_directory),
		env_file: path('env_file', o.env_file),
		rw,
		low_ports: o.bind_low_ports ?? false,
		mdwe: o.memory_deny_write_execute ?? true,
		after,
	};
}

/**
 * A systemd unit at /etc/systemd/system/<name>.service running `command` as
 * `user`, restarted on failure, with the sandbox systemd offers turned on:
 * no new privileges, no capabilities (but CAP_NET_BIND_SERVICE with
 * bind_low_ports), the file system read-only but read_write_paths
 * (ProtectSystem=strict), /home, /root and /run/user hidden, a private /tmp
 * and /dev, the kernel's tunables, modules, logs and clock and the control
 * groups protected, other processes invisible, namespaces, realtime
 * scheduling, set-id files and personality changes refused, system calls
 * held to the @system-service set of the native architecture, only
 * AF_UNIX, AF_INET and AF_INET6 sockets, and umask 077. Enable it with a
 * service resource whose restart_on names the file.
 */
export function hardened_systemd_unit(options: HardenedServiceOptions): FileSpec {
	const s = service_options('hardened_systemd_unit', options);
	const exec = s.args === '' ? s.command : `${s.command} ${s.args.split('%').join('%%')}`;
	const after = ['network-online.target', ...s.after].join(' ');
	const lines = [
		'# Written by Zap (hardened_systemd_unit). Edit the config, not this file.',
		'[Unit]',
		`Description=${s.description}`,
		`After=${after}`,
		`Wants=${after}`,
		'',
		'[Service]',
		'Type=simple',
		`User=${s.user}`,
		`Group=${s.group}`,
		`ExecStart=${exec}`,
	];
	if (s.cwd !== null) lines.push(`WorkingDirectory=${s.cwd}`);
	if (s.env_file !== null) lines.push(`EnvironmentFile=${s.env_file}`);
	lines.push(
		'Restart=on-failure',
		'RestartSec=2',
		'UMask=0077',
		'NoNewPrivileges=yes',
		`CapabilityBoundingSet=${s.low_ports ? 'CAP_NET_BIND_SERVICE' : ''}`,
		`AmbientCapabilities=${s.low_ports ? 'CAP_NET_BIND_SERVICE' : ''}`,
		'ProtectSystem=strict',
	);
	if (s.rw.length > 0) lines.push(`ReadWritePaths=${s.rw.join(' ')}`);
	lines.push(
		'ProtectHome=yes',
		'PrivateTmp=yes',
		'PrivateDevices=yes',
		'ProtectKernelTunables=yes',
		'ProtectKernelModules=yes',
		'ProtectKernelLogs=yes',
		'ProtectControlGroups=yes',
		'ProtectClock=yes',
		'ProtectHostname=yes',
		'ProtectProc=invisible',
		'RestrictNamespaces=yes',
		'RestrictRealtime=yes',
		'RestrictSUIDSGID=yes',
		'LockPersonality=yes',
		`MemoryDenyWriteExecute=${s.mdwe ? 'yes' : 'no'}`,
		'RemoveIPC=yes',
		'SystemCallArchitectures=native',
		'SystemCallFilter=@system-service',
		'SystemCallErrorNumber=EPERM',
		'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6',
		'',
		'[Install]',
		'WantedBy=multi-user.target',
		'',
	);
	return placed(options, `${s.name}-unit`, { path: `/etc/systemd/system/${s.name}.service`, mode: '644', content: { type: 'inline', content: lines.join('\n') } });
}

/** How long start_pre waits for the service user's check of the env file. */
export const OPENRC_ENV_CHECK_SECONDS = 10;

/** The most of the check's output root reads. */
export const OPENRC_ENV_CHECK_BYTES = 4096;

/**
 * The env-file reader the OpenRC script carries, a POSIX sh program run as
 * `sh -c READER zap-env MODE FILE [COMMAND ARGS...]`, always as the service
 * user: MODE check reads every line and assigns nothing; MODE run exports
 * each value, then execs COMMAND. It takes each line as data (nothing is
 * run or expanded) and refuses, naming the line, any line outside the
 * format of recipes.md. Its own variables begin _zap_, which a line may not
 * name. It holds no single quote, so the script can keep it in one.
 */
export const OPENRC_ENV_READER = [
	'_zap_mode=$1; _zap_file=$2; shift 2',
	'_zap_fail() { printf "%s\\n" "the env file $_zap_file: $*" >&2; exit 1; }',
	'[ "$(id -u)" != 0 ] || _zap_fail "is read as root: the service user was not taken on"',
	'[ -r "$_zap_file" ] || _zap_fail "cannot be read by the user $(id -un)"',
	'_zap_q=$(printf "\\047"); _zap_cr=$(printf "\\r"); _zap_n=0',
	'while IFS= read -r _zap_line || [ -n "$_zap_line" ]; do',
	'  _zap_n=$((_zap_n + 1))',
	'  case $_zap_line in *"$_zap_cr"*) _zap_fail "line $_zap_n holds a carriage return";; esac',
	'  _zap_t=${_zap_line#"${_zap_line%%[![:blank:]]*}"}',
	'  case $_zap_t in "" | "#"* | ";"*) continue;; esac',
	'  case $_zap_line in [A-Za-z_]*=*) ;; *) _zap_fail "line $_zap_n is not NAME=VALUE";; esac',
	'  _zap_name=${_zap_line%%=*}; _zap_value=${_zap_line#*=}',
	'  case $_zap_name in *[!A-Za-z0-9_]*) _zap_fail "line $_zap_n: the name is not letters, digits and _";; _zap_*) _zap_fail "line $_zap_n: a name may not begin _zap_";; esac',
	'  case $_zap_value in',
	'  "$_zap_q"*)',
	'    _zap_rest=${_zap_value#"$_zap_q"}',
	'    case $_zap_rest in *"$_zap_q") ;; *) _zap_fail "line $_zap_n: a quoted value must end the line with its closing quote";; esac',
	'    _zap_value=${_zap_rest%"$_zap_q"}',
	'    case $_zap_value in *"$_zap_q"*) _zap_fail "line $_zap_n: a quoted value holds no other quote";; esac;;',
	'  "") ;;',
	'  [[:blank:]]* | *[[:blank:]]) _zap_fail "line $_zap_n: a value may not start or end with a blank";;',
	'  \\"*) _zap_fail "line $_zap_n: a value may not start with a double quote";;',
	'  *\\\\*) _zap_fail "line $_zap_n: a value may not hold a backslash";;',
	'  esac',
	'  [ "$_zap_mode" = run ] && export "$_zap_name=$_zap_value"',
	'done < "$_zap_file"',
	'[ "$_zap_mode" = run ] && exec "$@"',
	'exit 0',
	'',
].join('\n');

/**
 * An OpenRC init script at /etc/init.d/<name> running `command` as `user`
 * in the background under start-stop-daemon, with umask 077 and its
 * pidfile in /run. The user is taken on with --chuid, which both OpenRC's
 * start-stop-daemon and dpkg's (a Debian host running OpenRC) read as the
 * user to run as (dpkg's reads --user only as a process to match); the
 * reader refuses to run as root besides. With env_file, start_pre first has the service user
 * check the file (OPENRC_ENV_READER, through su under a 10-second timeout,
 * its output written to a private directory of root's under /run of which
 * root reads the first 4 KiB), refusing the start with the user's or the
 * line's reason; then the daemon's process, already the service user,
 * reads the file again, exports the values and execs the command. Root
 * never parses the file. Needs su and timeout, which BusyBox gives Alpine.
 */
export function hardened_openrc_service(options: HardenedServiceOptions): FileSpec {
	const s = service_options('hardened_openrc_service', options);
	if (OPENRC_ENV_READER.includes("'")) throw new Error('hardened_openrc_service: the reader holds a quote');
	const q = single_quote;
	const lines = [
		'#!/sbin/openrc-run',
		'# Written by Zap (hardened_openrc_service). Edit the config, not this file.',
		`description=${q(s.description)}`,
		`pidfile=${q(`/run/${s.name}.pid`)}`,
	];
	if (s.rw.length > 0) lines.push(`# Writes: ${s.rw.join(' ')}`);
	lines.push('', 'depend() {', '\tneed net', ...(s.after.length > 0 ? [`\tafter ${s.after.join(' ')}`, `\twant ${s.after.join(' ')}`] : []), '}', '');
	const daemon = ['start-stop-daemon --start --background --make-pidfile --pidfile "$pidfile"', `--chuid ${q(`${s.user}:${s.group}`)}`, '--umask 077'];
	if (s.cwd !== null) daemon.push(`--chdir ${q(s.cwd)}`);
	const args = s.args === '' ? '' : ` ${s.args}`;
	if (s.env_file !== null) {
		lines.push(`_zap_env_reader='${OPENRC_ENV_READER}'`, '');
		lines.push(...start_pre(s.user, s.env_file), '');
		daemon.push(`--exec /bin/sh -- -c "$_zap_env_reader" zap-env run ${q(s.env_file)} ${q(s.command)}${args}`);
	} else {
		daemon.push(`--exec ${q(s.command)} --${args}`);
	}
	lines.push(
		'start() {',
		'\tebegin "Starting ${RC_SVCNAME}"',
		`\t${daemon.join(' \\\n\t\t')}`,
		'\teend $?',
		'}',
		'',
		'stop() {',
		'\tebegin "Stopping ${RC_SVCNAME}"',
		'\tstart-stop-daemon --stop --pidfile "$pidfile" --retry TERM/30/KILL/5',
		'\teend $?',
		'}',
		'',
	);
	return placed(options, `${s.name}-initd`, { path: `/etc/init.d/${s.name}`, mode: '755', content: { type: 'inline', content: lines.join('\n') } });
}

/** The check of the env file before the start, as the service user. */
function start_pre(user: string, env_file: string): string[] {
	const q = single_quote;
	return [
		'start_pre() {',
		'\tlocal _zap_dir _zap_rc _zap_msg',
		'\t_zap_dir=$(mktemp -d /run/zap-env.XXXXXX) || return 1',
		`\ttimeout ${OPENRC_ENV_CHECK_SECONDS} su -s /bin/sh -c "$_zap_env_reader" ${q(user)} zap-env check ${q(env_file)} >"$_zap_dir/out" 2>&1 </dev/null`,
		'\t_zap_rc=$?',
		`\t_zap_msg=$(head -c ${OPENRC_ENV_CHECK_BYTES} "$_zap_dir/out" | tr -d '\\000')`,
		'\trm -rf "$_zap_dir"',
		'\t[ "$_zap_rc" -eq 0 ] && return 0',
		`\t[ "$_zap_rc" -eq 124 ] && _zap_msg="the env file ${env_file} was not read in ${OPENRC_ENV_CHECK_SECONDS} seconds by the user ${user}"`,
		'\teerror "${RC_SVCNAME}: ${_zap_msg:-the check of the env file failed}"',
		'\treturn 1',
		'}',
	];
}
