#!/usr/bin/env bash
# Several hosts in one command (issue 42): `zap plan hosts` over five
# projects, one per host, each targeting a private sshd on 127.0.0.1 (the
# same sshd: five targets, five connections, five passes), beside the shell
# loop users write today, `for h in hosts/*; do zap plan $h; done`, run
# alternately, each after one untimed run of both.
#
# Budget (issue 42): the one command's median at most 0.6 times the loop's.
#
# Needs root (sshd, a sudoers drop-in); runs zap as BENCH_USER (default zaptest). BENCH_BIN
# (default bin/, which make build fills), BENCH_RUNS (default 5),
# BENCH_FILES (files per host, default 20), BENCH_JOBS (zap's -j, default
# zap's own).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "bench hosts: skipped: needs root to run a private sshd (run sudo testdata/bench/hosts.sh)"
	exit 0
fi
for t in /usr/sbin/sshd ssh ssh-keygen runuser python3 sudo; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench hosts: skipped: $t is not installed"; exit 0; }
done
user=${BENCH_USER:-zaptest}
id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /bin/sh "$user"
bin=${BENCH_BIN:-$root/bin}
runs=${BENCH_RUNS:-5}
files=${BENCH_FILES:-20}
jobs=()
[ -z "${BENCH_JOBS:-}" ] || jobs=(-j "$BENCH_JOBS")
for b in zap zap-eval zap-detect zap-plan; do
	[ -x "$bin/$b" ] || { echo "bench hosts: $bin/$b missing: run make build first" >&2; exit 1; }
done

work=$(mktemp -d /tmp/zap-bench-hosts.XXXXXX)
sshd_pid=
sudoers=
cleanup() {
	[ -z "$sshd_pid" ] || kill "$sshd_pid" 2>/dev/null || true
	[ -z "$sudoers" ] || rm -f "$sudoers"
	rm -rf "$work"
}
trap cleanup EXIT
# zap reads a remote file through sudo -n, as root: the connecting user's
# passwordless sudo, for the bench only.
sudoers=/etc/sudoers.d/zap-bench-hosts-$$
echo "$user ALL=(ALL) NOPASSWD: ALL" > "$sudoers"
chmod 440 "$sudoers"
chmod 755 "$work"
mkdir -p "$work/sshd" "$work/home/.ssh" "$work/sshbin" "$work/target" "$work/zaphome" /run/sshd

ssh-keygen -q -t ed25519 -N '' -f "$work/sshd/host_ed25519"
ssh-keygen -q -t ed25519 -N '' -f "$work/home/.ssh/id_ed25519"
install -m 644 "$work/home/.ssh/id_ed25519.pub" "$work/sshd/authorized_keys"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf '%s\n' "Port $port" "ListenAddress 127.0.0.1" "HostKey $work/sshd/host_ed25519" "PidFile $work/sshd/pid" \
	"AuthorizedKeysFile $work/sshd/authorized_keys" "UsePAM yes" "PasswordAuthentication no" \
	"KbdInteractiveAuthentication no" "StrictModes no" "MaxStartups 50" "MaxSessions 50" > "$work/sshd/config"
/usr/sbin/sshd -D -f "$work/sshd/config" -E "$work/sshd/log" &
sshd_pid=$!
for ((i = 0; i < 100; i++)); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.05
done
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$work/sshd/host_ed25519.pub")" > "$work/home/.ssh/known_hosts"
printf '%s\n' "Host *" "  IdentityFile $work/home/.ssh/id_ed25519" "  UserKnownHostsFile $work/home/.ssh/known_hosts" \
	"  GlobalKnownHostsFile /dev/null" > "$work/home/.ssh/config"
printf '#!/bin/sh\nexec %s -F %s "$@"\n' "$(command -v ssh)" "$work/home/.ssh/config" > "$work/sshbin/ssh"
chmod 755 "$work/sshbin/ssh"

# Five hosts, each a project of $files files under its own directory of
# the target, owned by the connecting user (no sudo needed to read them).
for h in web1 web2 db cache mail; do
	mkdir -p "$work/hosts/$h" "$work/target/$h"
	echo "{\"name\": \"bench-$h\", \"private\": true}" > "$work/hosts/$h/package.json"
	{
		echo 'export default (zap) => {'
		echo "	zap.target({host: '127.0.0.1', port: $port, user: '$user'});"
		echo "	for (let i = 0; i < $files; i++) {"
		echo "		zap.file({id: 'f' + i, path: '$work/target/$h/f' + i, content: {type: 'inline', content: 'line ' + i + '\\n'}, mode: '644'});"
		echo '	}'
		echo '};'
	} > "$work/hosts/$h/zap.ts"
done
chmod 700 "$work/zaphome"
chown "$user" "$work"
chown -R "$user" "$work/home" "$work/hosts" "$work/target" "$work/zaphome"
as() {
	runuser -u "$user" -- env HOME="$work/home" ZAP_HOME="$work/zaphome" PATH="$work/sshbin:$PATH" "$@"
}
cd "$work"
for h in hosts/*; do as "$bin/zap" lock "$h" >/dev/null; done

# ms CMD...: CMD's wall time in ms; a failure stops the bench.
ms() {
	local s e
	s=$(date +%s%N)
	"$@" > "$work/out" 2>&1 || { echo "bench hosts: $* failed:" >&2; tail -40 "$work/out" >&2; exit 1; }
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
loop() { as sh -c "for h in hosts/*; do '$bin/zap' plan \"\$h\" || exit 1; done"; }
one() { as "$bin/zap" plan "${jobs[@]}" hosts; }

ms loop >/dev/null
ms one >/dev/null
grep -q '^combined plan_hash: ' "$work/out" || { echo "bench hosts: zap plan hosts printed no combined plan_hash:" >&2; tail -5 "$work/out" >&2; exit 1; }
loops=() ones=()
for ((r = 0; r < runs; r++)); do
	loops+=("$(ms loop)")
	ones+=("$(ms one)")
done
loop_ms=$(median "${loops[@]}")
one_ms=$(median "${ones[@]}")
ratio=$(awk -v a="$one_ms" -v b="$loop_ms" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 1) }')
verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 0.6) ? "ok" : "OVER BUDGET" }')

echo "zap bench, hosts: zap plan of five hosts of $files files each, over SSH to 127.0.0.1:$port as $user, median of $runs runs"
echo
printf '%-52s %8s ms   (runs: %s)\n' "zap plan ${jobs[*]:-}hosts (one command)" "$one_ms" "${ones[*]}"
printf '%-52s %8s ms   (runs: %s)\n' "for h in hosts/*; do zap plan \$h; done" "$loop_ms" "${loops[*]}"
echo
printf 'one command / the loop        %6sx  (budget <= 0.6x)   %s\n' "$ratio" "$verdict"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPU(s)"
