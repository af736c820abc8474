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
# Then the writes (writes.sh): `zap apply --wetrun` of 200 and 2,000 new
# files (content, mode 644, owner root) into a fresh directory, against the
# floor issue 16 defines: ONE ssh session running one `sudo -n sh -c` per
# file with the content on its standard input. 20,000 files only with
# BENCH_BIG=1 (about ten minutes today). BENCH_PART=reads or writes runs only
# that half; BENCH_WRITE_RUNS (default 3, for 200 files; 2,000 and 20,000 run
# once) and BENCH_TIMEOUT (seconds per zap run; default 300 for 200 files,
# 1800 for 2,000, 3600 for 20,000) shape the writes.
#
# Needs root (sshd, the sudoers drop-in); zap itself runs as BENCH_USER
# (default zaptest), since zap-eval never evaluates as root. BENCH_BIN (the
# binaries; default bin/, which make build fills), BENCH_RUNS
# (default 11), BENCH_PEER_RUNS (default 1), BENCH_FILES (default 200).
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
case $part in all | reads | writes) ;; *) echo "bench ssh: BENCH_PART is $part, not all, reads or writes" >&2; exit 2 ;; esac
for b in zap zap-eval zap-detect zap-plan zap-exec; do
	[ -x "$bin/$b" ] || { echo "bench ssh: $bin/$b missing: run make build first" >&2; exit 1; }
done

work=$(mktemp -d /tmp/zap-bench-ssh.XXXXXX)
sshd_pid=
sudoers=
cleanup() {
	[ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null || true
	[ -n "$sudoers" ] && rm -f "$sudoers"
	rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
mkdir -p "$work/sshd" "$work/home/.ssh" "$work/sshbin" "$work/target" /run/sshd

# The server: a free port on 127.0.0.1, key login for $user.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ssh-keygen -q -t ed25519 -N '' -f "$work/sshd/host_ed25519"
ssh-keygen -q -t ed25519 -N '' -f "$work/home/.ssh/id_ed25519"
cp "$work/home/.ssh/id_ed25519.pub" "$work/sshd/authorized_keys"
chmod 644 "$work/sshd/authorized_keys"
cat > "$work/sshd/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $work/sshd/host_ed25519
PidFile $work/sshd/sshd.pid
AuthorizedKeysFile $work/sshd/authorized_keys
UsePAM yes
PermitRootLogin no
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
MaxSessions 50
MaxStartups 50
EOF
sudoers=/etc/sudoers.d/zap-bench-ssh-$port
echo "$user ALL=(ALL) NOPASSWD: ALL" > "$sudoers"
chmod 440 "$sudoers"
/usr/sbin/sshd -D -f "$work/sshd/sshd_config" -E "$work/sshd/log" &
sshd_pid=$!
for ((i = 0; i < 100; i++)); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.05
done

# The client: an ssh config naming the identity and known_hosts, read by an
# ssh wrapper on PATH (ssh reads the account's own home, not HOME).
cat > "$work/home/.ssh/config" <<EOF
Host *
  IdentityFile $work/home/.ssh/id_ed25519
  UserKnownHostsFile $work/home/.ssh/known_hosts
  GlobalKnownHostsFile /dev/null
EOF
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$work/sshd/host_ed25519.pub")" > "$work/home/.ssh/known_hosts"
printf '#!/bin/sh\nexec %s -F %s "$@"\n' "$(command -v ssh)" "$work/home/.ssh/config" > "$work/sshbin/ssh"
chmod 755 "$work/sshbin/ssh"

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
mkdir -p "$work/zaphome"
chmod 700 "$work/zaphome"
chown -R "$user" "$work/home" "$work/zaphome" "$work/small" "$work/big"

# as CMD...: CMD as $user, in the bench's environment.
as() {
	runuser -u "$user" -- env HOME="$work/home" ZAP_HOME="$work/zaphome" PATH="$work/sshbin:$PATH" "$@"
}

if [ "$part" != reads ]; then
	# shellcheck source=writes.sh
	. "$root/testdata/bench/writes.sh"
	as_user() { as "$@"; }
	floor_cmd() { as timeout -k 10 "$2" sh -c "ssh -p $port $user@127.0.0.1 sh < '$1'"; }
	# A floor or wetrun its timeout stopped may leave the target's shell
	# writing a moment longer: try the removal again.
	clear_dir() { rm -rf "$1" 2>/dev/null || { sleep 2; rm -rf "$1"; }; }
	zaphomes=$work/zaphomes
	mkdir -m 700 "$zaphomes"
	chown "$user" "$zaphomes"
	echo "zap bench over SSH, writes: N new files (content, mode 644, owner root) into a fresh directory"
	echo "on 127.0.0.1:$port as $user with sudo; each run: a fresh ZAP_HOME, the directory removed,"
	echo "zap apply (the dry run a wetrun needs as its review, not timed), then zap apply --wetrun, timed alone"
	echo "floor: one ssh session running one sudo -n sh -c 'cat > f.tmp; chmod; chown; mv' per file, content on stdin"
	echo
	sizes="$files $big"
	if [ "${BENCH_BIG:-}" = 1 ]; then
		sizes="$sizes $((big * 10))"
		echo "BENCH_BIG=1: $((big * 10)) files too; over SSH that takes ten minutes or more today (issue 16 saw 3,730 files in 580 s)"
	fi
	writes_header
	for n in $sizes; do
		mkdir -p "$work/w$n"
		echo '{"name": "zap-bench-ssh-writes", "private": true}' > "$work/w$n/package.json"
		write_config "$work/w$n/zap.ts" "{host: '127.0.0.1', port: $port, user: '$user'}" "$work/target/writes" "$n" root
		write_floor_ssh "$work/w$n/floor.sh" "$work/target/writes" "$n" root
		chown -R "$user" "$work/w$n"
		(cd "$work/w$n" && as "$bin/zap" lock zap.ts > /dev/null)
		r=1 limit=1800
		[ "$n" -eq "$files" ] && r=${BENCH_WRITE_RUNS:-3} limit=300
		[ "$n" -gt "$big" ] && limit=3600
		bench_writes "$n" "$r" "${BENCH_TIMEOUT:-$limit}" "$work/w$n" "$work/target/writes" "$work/w$n/floor.sh"
	done
	if [ "${BENCH_BIG:-}" != 1 ]; then
		writes_row $((big * 10)) "skipped" "skipped" 0
		echo "($((big * 10)) files skipped: a wetrun that size over SSH takes ten minutes or more today (issue 16); BENCH_BIG=1 runs it)"
	fi
	load_note
	peer_writes "$files" "$work/target/writes" ssh "$port" "$user" "$work/home/.ssh/config"
	echo
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

peer=
if command -v ansible-playbook >/dev/null 2>&1; then
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
	peer=$(median_ms as env ANSIBLE_PIPELINING=True ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_REMOTE_TMP=/tmp/.ansible-zap-bench \
		ANSIBLE_LOCAL_TEMP="$work/peer/tmp" ansible-playbook --check -i "$work/peer/hosts" "$work/peer/play.yml")
	runs=$runs_saved
	row "peer: ansible-playbook --check, $files files" "$peer"
else
	row "peer: ansible-playbook --check" "n/a (not installed: apt-get install ansible-core)"
fi

echo
verdict() { awk -v v="$1" -v lim="$2" -v op="$3" 'BEGIN { ok = (op == "<=") ? v <= lim : v >= lim; print ok ? "ok" : "OVER BUDGET" }'; }
r=$(ratio "$zap_small" "$floor")
printf 'zap plan / floor            %8sx  (budget <= 1.5x)   %s\n' "$r" "$(verdict "$r" 1.5 '<=')"
if [ -n "$peer" ]; then
	r=$(ratio "$peer" "$zap_small")
	printf 'peer / zap plan             %8sx  (budget >= 100x)   %s\n' "$r" "$(verdict "$r" 100 '>=')"
fi
r=$(ratio "$zap_big" "$zap_small")
printf '%d files / %d files    %8sx  (budget <= 3x)     %s\n' "$big" "$files" "$r" "$(verdict "$r" 3 '<=')"
