#!/usr/bin/env bash
# The speed of a deploy (issue 18): `zap-deploy run` of a plan shipping a
# 5 MB artifact (random bytes, so the archive stays 5 MB) to a private sshd
# on 127.0.0.1, with no build step (--skip-build, the artifact made
# beforehand) and no health check or restart declared, so what is timed is
# the tarball, the SSH connection, the upload checked by SHA-512 and the
# release script (lock, recovery, extract, swap, deploy_info.json, prune).
# Side by side with the floor: `scp` of the same archive into the app's
# directory plus one `ssh host true`, both through the same ssh config.
# Each run deploys a new commit (an empty one), planned untimed beforehand.
#
# Budget (issue 18): the deploy's median at most 2 times the floor's.
#
# Needs root (sshd); runs zap-deploy and the floor as BENCH_USER (default
# zaptest). BENCH_BIN (default bin/, which make build fills), BENCH_RUNS
# (default 5), BENCH_DEPLOY_MB (default 5).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "bench deploy: skipped: needs root to run a private sshd (run sudo testdata/bench/deploy.sh)"
	exit 0
fi
for t in /usr/sbin/sshd ssh scp ssh-keygen runuser git python3; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench deploy: skipped: $t is not installed"; exit 0; }
done
user=${BENCH_USER:-zaptest}
id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /bin/sh "$user"
bin=${BENCH_BIN:-$root/bin}
runs=${BENCH_RUNS:-5}
mb=${BENCH_DEPLOY_MB:-5}
for b in zap zap-eval zap-deploy; do
	[ -x "$bin/$b" ] || { echo "bench deploy: $bin/$b missing: run make build first" >&2; exit 1; }
done

work=$(mktemp -d /tmp/zap-bench-deploy.XXXXXX)
sshd_pid=
cleanup() {
	[ -z "$sshd_pid" ] || kill "$sshd_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
mkdir -p "$work/sshd" "$work/home/.ssh" "$work/sshbin" "$work/target/app" "$work/app/bin" "$work/zaphome" /run/sshd

# The sshd: its own host key, key login for $user by the bench's own
# authorized_keys, on a free port of 127.0.0.1, in the foreground.
ssh-keygen -q -t ed25519 -N '' -f "$work/sshd/host_ed25519"
ssh-keygen -q -t ed25519 -N '' -f "$work/home/.ssh/id_ed25519"
install -m 644 "$work/home/.ssh/id_ed25519.pub" "$work/sshd/authorized_keys"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf '%s\n' "Port $port" "ListenAddress 127.0.0.1" "HostKey $work/sshd/host_ed25519" "PidFile $work/sshd/pid" \
	"AuthorizedKeysFile $work/sshd/authorized_keys" "UsePAM yes" "PasswordAuthentication no" \
	"KbdInteractiveAuthentication no" "StrictModes no" "Subsystem sftp internal-sftp" > "$work/sshd/config"
/usr/sbin/sshd -D -f "$work/sshd/config" -E "$work/sshd/log" &
sshd_pid=$!
for ((i = 0; i < 100; i++)); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.05
done
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$work/sshd/host_ed25519.pub")" > "$work/home/.ssh/known_hosts"
# The client: ssh reads the account's own home, not HOME, so an ssh on PATH
# names the bench's config; scp is told it with -F.
printf '%s\n' "Host *" "  IdentityFile $work/home/.ssh/id_ed25519" "  UserKnownHostsFile $work/home/.ssh/known_hosts" \
	"  GlobalKnownHostsFile /dev/null" > "$work/home/.ssh/config"
printf '#!/bin/sh\nexec %s -F %s "$@"\n' "$(command -v ssh)" "$work/home/.ssh/config" > "$work/sshbin/ssh"
chmod 755 "$work/sshbin/ssh"

# The app: a git checkout whose artifact, bin/blob, is ignored and made
# here; the target's app directory, the connecting user's.
cd "$work/app"
head -c $((mb << 20)) /dev/urandom > bin/blob
echo 'bin/' > .gitignore
echo '{"name": "zap-bench-deploy", "private": true}' > package.json
cat > zap.ts <<TS
export default (zap) => {
	zap.target({host: '127.0.0.1', port: $port, user: '$user'});
	zap.deploy({path: '$work/target/app', artifacts: ['bin'], releases: 2});
};
TS
chmod 700 "$work/zaphome"
chown "$user" "$work"
chown -R "$user" "$work/home" "$work/app" "$work/target" "$work/zaphome"
as() {
	runuser -u "$user" -- env HOME="$work/home" ZAP_HOME="$work/zaphome" PATH="$work/sshbin:$PATH" "$@"
}
as git init -q -b main .
as "$bin/zap" lock zap.ts >/dev/null
as git add -A
as git -c user.email=b@example.org -c user.name=b commit -q -m app
as "$bin/zap-eval" zap.ts > "$work/decl.json"
as tar -czf "$work/floor.tar.gz" bin
archive_mb=$(awk -v b="$(stat -c %s "$work/floor.tar.gz")" 'BEGIN { printf "%.1f", b / 1048576 }')

# ms CMD...: CMD's wall time in ms; a failure stops the bench.
ms() {
	local s e
	s=$(date +%s%N)
	"$@" > "$work/out" 2>&1 || { echo "bench deploy: $* failed:" >&2; tail -5 "$work/out" >&2; exit 1; }
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

deploys=() floors=()
for ((r = 0; r < runs; r++)); do
	as git -c user.email=b@example.org -c user.name=b commit -q --allow-empty -m "run $r"
	as sh -c "'$bin/zap-deploy' plan --skip-build --skip-preflight < '$work/decl.json' > '$work/plan.json'"
	deploys+=("$(ms as "$bin/zap-deploy" run --dir . "$work/plan.json")")
	grep -q '"event":"run_ok"' "$work/out" || { echo "bench deploy: the deploy didn't end run_ok:" >&2; tail -5 "$work/out" >&2; exit 1; }
	floors+=("$(ms as sh -c "scp -q -F '$work/home/.ssh/config' -P $port '$work/floor.tar.gz' $user@127.0.0.1:'$work/target/app/floor.tar.gz' && ssh -p $port $user@127.0.0.1 true")")
done
deploy_ms=$(median "${deploys[@]}")
floor_ms=$(median "${floors[@]}")
ratio=$(awk -v a="$deploy_ms" -v b="$floor_ms" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 1) }')
verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 2) ? "ok" : "OVER BUDGET" }')

echo "zap bench, deploy: a ${mb} MiB artifact (archive ${archive_mb} MiB) to 127.0.0.1:$port as $user, median of $runs runs"
echo "(no build, no restart, no health check: tarball, connection, upload, release script)"
echo
printf '%-52s %8s ms   (runs: %s)\n' "zap-deploy run" "$deploy_ms" "${deploys[*]}"
printf '%-52s %8s ms   (runs: %s)\n' "floor: scp of the archive + ssh host true" "$floor_ms" "${floors[*]}"
echo
printf 'zap-deploy run / floor        %6sx  (budget <= 2x)   %s\n' "$ratio" "$verdict"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPU(s)"
