#!/usr/bin/env bash
# The speed of `zap plan` on a converged config over SSH (issue 4), against
# a private sshd on 127.0.0.1 (started here the way scripttest's `sshd start`
# does: its own host key, key login for the account zaptest, NOPASSWD sudo by
# a drop-in removed at the end), side by side with
#   the floor: one hand-written shell script doing the same reads (type,
#     mode, owner and links of every path, the SHA-512 of every file) over ONE
#     ssh connection, under sudo as zap's root batch reads them:
#     ssh host sudo -n sh < floor.sh
#   the peer: ansible-playbook --check of the same files over ssh (become,
#     pipelining, ControlPersist), when it is installed.
#
# Budget (issue 4): zap plan of a converged 200-file config over SSH, median
# at most 1.5 times the floor; at least 100 times faster than the peer; and
# 2,000 files at most 3 times the 200-file time.
#
# Reads also: zap plan of the 2,000-file config beside the same floor for
# 2,000 files, budget at most 1.2 times it (issue 16); and zap plan --diff
# of 200 files each edited by hand beside zap plan of the same, budget at
# most 1.3 times it (issue 37).
#
# Then the writes (writes.sh), issue 16's apply columns in one run: `zap
# apply --wetrun` of 200 and 2,000 new files (content, mode 644, owner root)
# into a fresh directory, logging in as root, beside
#   the floor: ONE ssh session running, per file, the `sudo -n sh -s` of
#     zap's put with the same bytes on stdin (the constant put script of
#     internal/ops, written by testdata/bench/floorput);
#   the hand floor (200 files): ONE ssh session running, per file, `sudo -n
#     sh -c 'cat > tmp && chmod && chown && mv'` with the content on stdin
#     (floorput -hand): the unguarded write a person would type, issue 16's
#     own floor, against which the put's checks show what they cost;
#   the peers: ansible-playbook (copy tasks, pipelining) and pyinfra
#     (files.put) writing the same 200 files, each skipped with a note where
#     it isn't installed;
# and the same 200 files (zap and the floor) with 100 ms added to every
# session's shell start, to show what a session costs zap, and 50 ms of
# network round trip, to show what a round trip costs it. Root's shell
# start files are never touched: the write sshds (two, started here) set
# HOME for their sessions to a directory of the bench's (SetEnv), whose
# .bashrc, the one root's bash reads when sshd runs a command, is empty for
# one and `sleep 0.1` for the other; sudo gives the commands root's own
# HOME again.
# Budgets (issue 16): 200 files at most 5 s and at most 2 times the floor;
# the 100 ms shell start paid once per batch, not per file (read here as at
# most 10 session starts, 1 s, where one per file is 200); 2,000 files at
# most 10 times the 200; at least 20 times faster than ansible-playbook.
# 20,000 files (wetrun, then plan of them converged, each with its peak
# RSS) only with BENCH_BIG=1; BENCH_SSH_WRITES replaces the list of write
# rows, as pairs of a count and a way to the target (plain, slow, or far:
# the plain sshd BENCH_RTT_MS, default 50, of round trip away through
# testdata/bench/delayproxy, this machine having no netem), e.g. "200
# plain 2000 plain". Each write row also gives zap's CPU time (zap and its
# stages, user + system, median): the figure load on the machine changes
# least. BENCH_PART=reads or writes runs only that half, and
# BENCH_PART=diff only the --diff rows; BENCH_WRITE_RUNS (default 3, for
# 200 files; 2,000 and 20,000 run once) and BENCH_TIMEOUT (seconds per zap run; default 300 for 200 files,
# 1800 for 2,000, 3600 for 20,000) shape the writes.
#
# Needs root (sshd, the sudoers drop-in); zap itself runs as BENCH_USER
# (default zaptest), since zap-eval never evaluates as root. BENCH_BIN (the
# binaries; default bin/, which make build fills), BENCH_RUNS
# (default 11), BENCH_PEER_RUNS (default 1; 0 skips the peers, the write
# peers too), BENCH_FILES (default 200).
# The floor's writer is built with go (GO, default go).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "bench ssh: skipped: needs root to run a private sshd and a sudoers drop-in (run.sh drops root first: run sudo testdata/bench/ssh.sh)"
	exit 0
fi
for t in /usr/sbin/sshd ssh ssh-keygen sudo runuser; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench ssh: skipped: $t is not installed"; exit 0; }
done
user=${BENCH_USER:-zaptest}
if ! id "$user" >/dev/null 2>&1; then
	useradd --system --no-create-home --shell /bin/sh "$user"
fi
bin=${BENCH_BIN:-$root/bin}
runs=${BENCH_RUNS:-11}
files=${BENCH_FILES:-200}
big=$((files * 10))
part=${BENCH_PART:-all}
case $part in all | reads | writes | diff) ;; *) echo "bench ssh: BENCH_PART is $part, not all, reads, writes or diff" >&2; exit 2 ;; esac
for b in zap zap-eval zap-detect zap-plan zap-exec; do
	[ -x "$bin/$b" ] || { echo "bench ssh: $bin/$b missing: run make build first" >&2; exit 1; }
done

work=$(mktemp -d /tmp/zap-bench-ssh.XXXXXX)
sshd_pids=()
sudoers=
# below PID: PID's descendants, as the process table shows them now.
below() {
	local c
	for c in $(ps -o pid= --ppid "$1"); do
		echo "$c"
		below "$c"
	done
}
# cleanup stops each sshd and, first, what its sessions still run (a floor
# an interrupted bench left writing), by PID.
cleanup() {
	local p
	for p in "${sshd_pids[@]}"; do
		# shellcheck disable=SC2046 # one PID a word
		kill -9 $(below "$p") 2>/dev/null || true
		kill "$p" 2>/dev/null || true
	done
	[ -n "$sudoers" ] && rm -f "$sudoers"
	rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
mkdir -p "$work/sshd" "$work/home/.ssh" "$work/sshbin" "$work/target" /run/sshd

ssh-keygen -q -t ed25519 -N '' -f "$work/sshd/host_ed25519"
ssh-keygen -q -t ed25519 -N '' -f "$work/home/.ssh/id_ed25519"
cp "$work/home/.ssh/id_ed25519.pub" "$work/sshd/authorized_keys"
chmod 644 "$work/sshd/authorized_keys"
sudoers=/etc/sudoers.d/zap-bench-ssh-$$
echo "$user ALL=(ALL) NOPASSWD: ALL" > "$sudoers"
chmod 440 "$sudoers"

# start_sshd NAME [CONFIG LINE...]: a private sshd on a free port of
# 127.0.0.1 with key login for $user and root (by the bench's own
# authorized_keys, never root's), its port in port and recorded in the
# client's known_hosts.
start_sshd() {
	local name=$1 i
	shift
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	{
		cat <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $work/sshd/host_ed25519
PidFile $work/sshd/$name.pid
AuthorizedKeysFile $work/sshd/authorized_keys
UsePAM yes
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
MaxSessions 50
MaxStartups 50
EOF
		printf '%s\n' "$@"
	} > "$work/sshd/$name.config"
	/usr/sbin/sshd -D -f "$work/sshd/$name.config" -E "$work/sshd/$name.log" &
	sshd_pids+=($!)
	for ((i = 0; i < 100; i++)); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
		sleep 0.05
	done
	echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$work/sshd/host_ed25519.pub")" >> "$work/home/.ssh/known_hosts"
}

# The client: an ssh config naming the identity and known_hosts, read by an
# ssh wrapper on PATH (ssh reads the account's own home, not HOME).
cat > "$work/home/.ssh/config" <<EOF
Host *
  IdentityFile $work/home/.ssh/id_ed25519
  UserKnownHostsFile $work/home/.ssh/known_hosts
  GlobalKnownHostsFile /dev/null
EOF
printf '#!/bin/sh\nexec %s -F %s "$@"\n' "$(command -v ssh)" "$work/home/.ssh/config" > "$work/sshbin/ssh"
chmod 755 "$work/sshbin/ssh"
start_sshd reads

# A project of $1 files under $work/target/$2, and the files themselves,
# written converged (content and mode 644) straight onto the host's disk.
project() {
	local n=$1 name=$2
	mkdir -p "$work/$name" "$work/target/$name"
	echo '{"name": "zap-bench-ssh", "private": true}' > "$work/$name/package.json"
	cat > "$work/$name/zap.ts" <<TS
export default (zap) => {
	zap.target({host: '127.0.0.1', port: $port, user: '$user'});
	zap.directory({id: 'bench', path: '$work/target/$name'});
	for (let i = 0; i < $n; i++) {
		zap.file({
			id: \`f\${i}\`,
			path: \`$work/target/$name/f\${i}.txt\`,
			content: {type: 'inline', content: \`file \${i}\\n\`.repeat(40)},
			mode: '644',
			depends_on: ['bench'],
		});
	}
};
TS
	for ((i = 0; i < n; i++)); do
		for ((k = 0; k < 40; k++)); do echo "file $i"; done > "$work/target/$name/f$i.txt"
	done
	chmod 644 "$work/target/$name"/*.txt
	{
		echo "cd '$work/target/$name' || exit 1"
		printf "stat -c '%%F %%a %%U %%G %%h' ."
		for ((i = 0; i < n; i++)); do printf ' f%d.txt' "$i"; done
		echo
		printf 'sha512sum'
		for ((i = 0; i < n; i++)); do printf ' f%d.txt' "$i"; done
		echo
	} > "$work/$name/floor.sh"
}
project "$files" small
project "$big" big
# The same files drifted: a line of each edited by hand, for zap plan
# --diff beside zap plan (issue 37).
project "$files" drifted
for ((i = 0; i < files; i++)); do
	sed -i '20s/.*/edited by hand/' "$work/target/drifted/f$i.txt"
done
mkdir -p "$work/zaphome"
chmod 700 "$work/zaphome"
chown -R "$user" "$work/home" "$work/zaphome" "$work/small" "$work/big" "$work/drifted"

# as CMD...: CMD as $user, in the bench's environment.
as() {
	runuser -u "$user" -- env HOME="$work/home" ZAP_HOME="$work/zaphome" PATH="$work/sshbin:$PATH" "$@"
}

# ssh_writes: the write half (see the top), its table and its budgets.
ssh_writes() {
	local n shell r limit row zap200=- floor200=- hand200=- zapstarts=- zapslow=- floorslow=- zapfar=- floorfar=- zap2000=- tag=0 rows=() sizes i
	# shellcheck source=writes.sh
	. "$root/testdata/bench/writes.sh"
	as_user() { as "$@"; }
	floor_cmd() { as timeout -k 10 "$2" sh -c "ssh -p $wport root@127.0.0.1 sh < '$1'"; }
	# A floor or wetrun its timeout stopped may leave the target's shell
	# writing a moment longer: try the removal again.
	clear_dir() { rm -rf "$1" 2>/dev/null || { sleep 2; rm -rf "$1"; }; }
	zaphomes=$work/zaphomes
	mkdir -m 700 "$zaphomes"
	chown "$user" "$zaphomes"
	(cd "$root" && "${GO:-go}" build -o "$work/floorput" ./testdata/bench/floorput)

	# The two write sshds: root's shell start is the bench's .bashrc.
	mkdir -p "$work/rootenv/plain" "$work/rootenv/slow"
	: > "$work/rootenv/plain/.bashrc"
	# The slow shell start also counts itself: a line in starts per session.
	: > "$work/rootenv/slow/starts"
	printf 'echo >> %s\nsleep 0.1\n' "'$work/rootenv/slow/starts'" > "$work/rootenv/slow/.bashrc"
	start_sshd plain "SetEnv HOME=$work/rootenv/plain"
	local plain=$port
	start_sshd slow "SetEnv HOME=$work/rootenv/slow"
	local slow=$port
	sizes="$files plain $files slow $files far $big plain"
	[ "${BENCH_BIG:-}" = 1 ] && sizes="$sizes $((big * 10)) plain"
	sizes=${BENCH_SSH_WRITES:-$sizes}
	# A far row reaches the plain sshd through delayproxy, RTT ms away.
	local far= rtt=${BENCH_RTT_MS:-50}
	case " $sizes " in *" far "*)
		(cd "$root" && "${GO:-go}" build -o "$work/delayproxy" ./testdata/bench/delayproxy)
		"$work/delayproxy" "$plain" "$rtt" > "$work/delayproxy.port" &
		sshd_pids+=($!)
		for ((i = 0; i < 100; i++)); do
			far=$(cat "$work/delayproxy.port")
			[ -n "$far" ] && break
			sleep 0.05
		done
		[ -n "$far" ] || { echo "bench ssh: delayproxy gave no port" >&2; exit 1; }
		echo "[127.0.0.1]:$far $(cut -d' ' -f1,2 "$work/sshd/host_ed25519.pub")" >> "$work/home/.ssh/known_hosts"
		;;
	esac

	echo "zap bench over SSH, writes: N new files (content, mode 644, owner root) into a fresh directory,"
	echo "logging in as root on 127.0.0.1 (private sshds whose sessions' HOME is the bench's: an empty .bashrc,"
	echo "or one that sleeps 100 ms); each run: a fresh ZAP_HOME, the directory removed, zap apply (the dry"
	echo "run a wetrun needs as its review, not timed), then zap apply --wetrun, timed alone; medians"
	echo "floor: one ssh session running per file the sudo -n sh -s of zap's put, the same bytes on stdin"
	echo "hand: one ssh session running per file sudo -n sh -c 'cat > tmp && chmod && chown && mv', the content"
	echo "on stdin (floorput -hand): what a person would write, with none of the put's checks"
	echo "far: the same sshd $rtt ms of round trip away (testdata/bench/delayproxy holds each chunk $((rtt / 2)) ms"
	echo "each way), zap and the floor alike"
	echo
	printf '%-28s %14s %14s %7s %14s %7s %5s %9s %9s\n' 'resources' 'zap --wetrun' floor ratio hand ratio runs 'peak RSS' 'zap CPU'
	set -- $sizes
	while [ $# -gt 0 ]; do
		n=$1 shell=$2
		shift 2
		tag=$((tag + 1)) project_tag=$tag
		wport=$plain
		local starts_log=
		[ "$shell" = slow ] && wport=$slow starts_log=$work/rootenv/slow/starts
		[ "$shell" = far ] && wport=$far
		mkdir -p "$work/w$tag"
		echo '{"name": "zap-bench-ssh-writes", "private": true}' > "$work/w$tag/package.json"
		write_config "$work/w$tag/zap.ts" "{host: '127.0.0.1', port: $wport, user: 'root'}" "$work/target/writes" "$n" root
		local floor= hand_floor=
		if [ "$n" -le "$big" ]; then
			floor=$work/w$tag/floor.sh
			"$work/floorput" "$n" "$work/target/writes" root > "$floor"
		fi
		if [ "$n" -le "$files" ]; then
			hand_floor=$work/w$tag/hand.sh
			"$work/floorput" -hand "$n" "$work/target/writes" root > "$hand_floor"
		fi
		chown -R "$user" "$work/w$tag"
		(cd "$work/w$tag" && as "$bin/zap" lock zap.ts > /dev/null)
		r=1 limit=1800
		[ "$n" -eq "$files" ] && r=${BENCH_WRITE_RUNS:-3} limit=300
		[ "$n" -gt "$big" ] && limit=3600
		local with=
		[ "$n" -gt "$big" ] && with=plan
		bench_writes "$n" "$r" "${BENCH_TIMEOUT:-$limit}" "$work/w$tag" "$work/target/writes" "$floor" "$with"
		row=$n
		[ "$shell" = slow ] && row="$n, +100 ms shell start"
		[ "$shell" = far ] && row="$n, +$rtt ms round trip"
		printf '%-28s %14s %14s %7s %14s %7s %5s %9s %9s\n' "$row" "$(ms "$zap_ms")" "$(ms "$floor_ms")" "$(ratio_of "$zap_ms" "$floor_ms")" \
			"$(ms "$hand_ms")" "$(ratio_of "$zap_ms" "$hand_ms")" "$r" "$zap_rss" "$(ms "$zap_cpu")"
		[ -n "$with" ] && rows+=("$(printf '%-28s %14s %14s %7s %14s %7s %5s %9s' "$n, zap plan (converged)" "$(ms "$plan_ms")" - - - - 1 "$plan_rss")")
		case $n-$shell in
		$files-plain) zap200=$zap_ms floor200=$floor_ms hand200=$hand_ms ;;
		$files-slow) zapslow=$zap_ms floorslow=$floor_ms zapstarts=$(cat "$zaphomes/w$n-$((r - 1))-$tag.starts" 2>/dev/null || echo -) ;;
		$files-far) zapfar=$zap_ms floorfar=$floor_ms ;;
		$big-plain) zap2000=$zap_ms ;;
		esac
	done
	for row in "${rows[@]}"; do echo "$row"; done
	[ "${BENCH_BIG:-}" = 1 ] || echo "($((big * 10)) files: skipped; BENCH_BIG=1 runs their wetrun and plan over SSH, with peak RSS)"
	wport=$plain
	peer_writes "$files" "$work/target/writes" ssh "$plain" root "$work/home/.ssh/config"
	echo "peer: ansible-playbook (copy tasks, pipelining), $files files: $(ms "$ansible_ms")"
	echo "peer: pyinfra (files.put), $files files: $(ms "$pyinfra_ms")"
	load_note
	echo
	echo "budgets (issue 16), never failing the bench:"
	budget "zap --wetrun, $files files (s)" "$(per "$zap200" 1000)" 5 '<='
	budget "zap --wetrun / floor, $files files" "$(per "$zap200" "$floor200")" 2 '<='
	budget "zap --wetrun / hand floor, $files files" "$(per "$zap200" "$hand200")" 2 '<='
	# What 100 ms more per session start cost, in session starts.
	budget "+100 ms shell start: session starts zap paid" "$(minus_per "$zapslow" "$zap200" 100)" 10 '<=' "(one per file would be $files)"
	budget "shell starts counted in one wetrun (slow sshd)" "$zapstarts" 10 '<=' "(counted by the .bashrc itself)"
	echo "  (the floor, one session, paid $(minus_per "$floorslow" "$floor200" 100) session starts of 100 ms: the sleep's own figure on this machine)"
	# What RTT more per round trip cost, in round trips: a figure, not a
	# budget of the issue's. Each of the run's three connections (the
	# pre-run read, zap-exec's, the read after) pays its handshake.
	echo "  +$rtt ms round trip: round trips zap paid             $(minus_per "$zapfar" "$zap200" "$rtt")   (one per file would be $files; the floor's one stream paid $(minus_per "$floorfar" "$floor200" "$rtt"))"
	# Issue 41: the round trip paid per window of writes, not per write.
	budget "zap --wetrun +$rtt ms / (1.3 x zap at 0 ms + 1 s)" "$(far_budget "$zapfar" "$zap200")" 1 '<='
	budget "zap --wetrun, $big files / $files files" "$(per "$zap2000" "$zap200")" 10 '<='
	budget "ansible-playbook / zap --wetrun, $files files" "$(per "$ansible_ms" "$zap200")" 20 '>='
	echo
}

# per A B: A / B to two places, or "-" when either isn't a figure.
per() {
	case $1$2 in
	*[!0-9]* | '') echo - ;;
	*) awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", a / (b > 0 ? b : 1) }' ;;
	esac
}

# far_budget FAR NEAR: FAR / (1.3 NEAR + 1000) to two places, or "-": the
# far row against issue 41's budget for it.
far_budget() {
	case $1$2 in
	*[!0-9]* | '') echo - ;;
	*) awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", a / (1.3 * b + 1000) }' ;;
	esac
}

# minus_per A B C: (A - B) / C to one place, or "-".
minus_per() {
	case $1$2 in
	*[!0-9]* | '') echo - ;;
	*) awk -v a="$1" -v b="$2" -v c="$3" 'BEGIN { printf "%.1f\n", (a - b) / c }' ;;
	esac
}

if [ "$part" = all ] || [ "$part" = writes ]; then
	reads_port=$port
	ssh_writes
	port=$reads_port
fi
[ "$part" = writes ] && exit 0

# Pin the evaluator, and check both configs read converged over SSH.
for name in small big; do
	(cd "$work/$name" && as "$bin/zap" lock zap.ts >/dev/null)
	out=$(cd "$work/$name" && as "$bin/zap" plan zap.ts) || { echo "bench ssh: zap plan ($name) failed:" >&2; echo "$out" >&2; exit 1; }
	grep -q '^(no changes — converged)$' <<<"$out" || { echo "bench ssh: the $name config doesn't read converged:" >&2; echo "$out" | head -20 >&2; exit 1; }
done

# median_ms CMD...: run CMD $runs times, print the median wall time in ms.
median_ms() {
	local t=() s e
	for ((r = 0; r < runs; r++)); do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 || { echo "bench ssh: $* failed" >&2; exit 1; }
		e=$(date +%s%N)
		t+=($(((e - s) / 1000)))
	done
	printf '%s\n' "${t[@]}" | sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2) { printf "%.1f\n", $1 / 1000 }'
}
row() { printf '%-48s %10s ms\n' "$1" "$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { awk -v v="$1" -v lim="$2" -v op="$3" 'BEGIN { ok = (op == "<=") ? v <= lim : v >= lim; print ok ? "ok" : "OVER BUDGET" }'; }

# diff_rows: zap plan --diff of the drifted files beside zap plan of the
# same (issue 37: the diff's text reads ride in the batch, so at most 1.3
# times), each checked to plan every file first.
diff_rows() {
	local out plain diff r
	(cd "$work/drifted" && as "$bin/zap" lock zap.ts >/dev/null)
	out=$(cd "$work/drifted" && as "$bin/zap" plan --diff zap.ts) || { echo "bench ssh: zap plan --diff failed:" >&2; echo "$out" >&2; exit 1; }
	grep -q "^Plan: $files change(s)$" <<<"$out" || { echo "bench ssh: the drifted config doesn't plan $files changes:" >&2; echo "$out" | head -20 >&2; exit 1; }
	[ "$(grep -c '^    -edited by hand$' <<<"$out")" = "$files" ] || { echo "bench ssh: zap plan --diff doesn't show $files diffs" >&2; exit 1; }
	plain=$(cd "$work/drifted" && median_ms as "$bin/zap" plan zap.ts)
	diff=$(cd "$work/drifted" && median_ms as "$bin/zap" plan --diff zap.ts)
	row "zap plan, $files drifted files" "$plain"
	row "zap plan --diff, $files drifted files" "$diff"
	r=$(ratio "$diff" "$plain")
	printf 'zap plan --diff / zap plan  %8sx  (budget <= 1.3x)   %s\n' "$r" "$(verdict "$r" 1.3 '<=')"
}
if [ "$part" = diff ]; then
	echo "zap bench over SSH: $files drifted files on 127.0.0.1:$port as $user, median of $runs runs"
	echo
	diff_rows
	exit 0
fi

echo "zap bench over SSH: converged files on 127.0.0.1:$port as $user, median of $runs runs"
echo
zap_small=$(cd "$work/small" && median_ms as "$bin/zap" plan zap.ts)
row "zap plan, $files files (whole command)" "$zap_small"
(cd "$work/small" && as "$bin/zap-eval" zap.ts > "$work/decl.json")
row "  zap-detect < declaration" "$(median_ms as sh -c "'$bin/zap-detect' < '$work/decl.json'")"
floor=$(median_ms as sh -c "ssh -p $port $user@127.0.0.1 sudo -n sh < '$work/small/floor.sh'")
row "floor: ssh host sudo -n sh < floor.sh" "$floor"
zap_big=$(cd "$work/big" && median_ms as "$bin/zap" plan zap.ts)
row "zap plan, $big files (whole command)" "$zap_big"
floor_big=$(median_ms as sh -c "ssh -p $port $user@127.0.0.1 sudo -n sh < '$work/big/floor.sh'")
row "floor, $big files" "$floor_big"
# Where the 2,000-file plan's time goes: the evaluation, which must end
# before zap connects (a host is connected to only once the config names
# it), and the plan with the eval cache serving a hit (ZAP_EVAL_CACHE=skip,
# the cache warmed by one run first), which is the read and plan alone.
eval_big=$(cd "$work/big" && median_ms as "$bin/zap-eval" zap.ts)
row "  zap-eval alone, $big files" "$eval_big"
(cd "$work/big" && as env ZAP_EVAL_CACHE=skip "$bin/zap" plan zap.ts >/dev/null)
zap_big_hit=$(cd "$work/big" && median_ms as env ZAP_EVAL_CACHE=skip "$bin/zap" plan zap.ts)
row "zap plan, $big files, ZAP_EVAL_CACHE=skip (a hit)" "$zap_big_hit"

peer=
if [ "${BENCH_PEER_RUNS:-}" = 0 ]; then
	row "peer: ansible-playbook --check" "skipped (BENCH_PEER_RUNS=0)"
elif command -v ansible-playbook >/dev/null 2>&1; then
	mkdir -p "$work/peer"
	{
		echo '- hosts: all'
		echo '  gather_facts: false'
		echo '  become: true'
		echo '  tasks:'
		for ((i = 0; i < files; i++)); do
			printf '    - copy: {dest: "%s/target/small/f%d.txt", mode: "0644", content: "%s"}\n' "$work" "$i" \
				"$(for ((k = 0; k < 40; k++)); do printf 'file %d\\n' "$i"; done)"
		done
	} > "$work/peer/play.yml"
	echo "127.0.0.1 ansible_port=$port ansible_user=$user ansible_ssh_common_args='-F $work/home/.ssh/config'" > "$work/peer/hosts"
	chown -R "$user" "$work/peer"
	runs_saved=$runs
	runs=${BENCH_PEER_RUNS:-1}
	peer=$(median_ms as env ANSIBLE_PIPELINING=True ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_REMOTE_TMP="$work/peer/remote-tmp" \
		ANSIBLE_LOCAL_TEMP="$work/peer/tmp" ansible-playbook --check -i "$work/peer/hosts" "$work/peer/play.yml")
	runs=$runs_saved
	row "peer: ansible-playbook --check, $files files" "$peer"
else
	row "peer: ansible-playbook --check" "n/a (not installed: apt-get install ansible-core)"
fi

diff_rows
echo
r=$(ratio "$zap_small" "$floor")
printf 'zap plan / floor            %8sx  (budget <= 1.5x)   %s\n' "$r" "$(verdict "$r" 1.5 '<=')"
if [ -n "$peer" ]; then
	r=$(ratio "$peer" "$zap_small")
	printf 'peer / zap plan             %8sx  (budget >= 100x)   %s\n' "$r" "$(verdict "$r" 100 '>=')"
fi
r=$(ratio "$zap_big" "$zap_small")
printf '%d files / %d files    %8sx  (budget <= 3x)     %s\n' "$big" "$files" "$r" "$(verdict "$r" 3 '<=')"
r=$(ratio "$zap_big" "$floor_big")
printf 'zap plan / floor, %d   %8sx  (budget <= 1.2x)   %s\n' "$big" "$r" "$(verdict "$r" 1.2 '<=')"
r=$(ratio "$zap_big_hit" "$floor_big")
printf '  the same, eval cache hit   %8sx  (a figure: the budget is the plain command'"'"'s)\n' "$r"
