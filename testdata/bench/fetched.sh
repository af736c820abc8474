#!/usr/bin/env bash
# The budget of issue 15: a converged config of 20 tracked remote files and
# one apt_repo plans with no network at all, within 1.2 times the same
# config with the 20 files' content inline. The bytes are served by a
# loopback http server (python3's) while zap lock mints the pins and a
# wetrun converges the target; the server is then stopped, so a plan that
# fetched anything would fail. Both configs are planned BENCH_RUNS times
# (default 21), interleaved, and the medians compared.
#
# Needs root: zap runs as BENCH_USER (default zaptest) with a NOPASSWD sudo
# drop-in made here and removed at the end, since the apt_repo's list file
# is written by root (under this run's own directory, not /etc/apt).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "bench fetched: skipped: needs root for the sudoers drop-in the apt_repo's write needs (run sudo testdata/bench/fetched.sh)"
	exit 0
fi
for t in python3 sudo runuser; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench fetched: skipped: $t is not installed"; exit 0; }
done
user=${BENCH_USER:-zaptest}
id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /bin/sh "$user"
bin=${BENCH_BIN:-$root/bin}
runs=${BENCH_RUNS:-21}
for b in zap zap-eval zap-detect zap-plan zap-exec; do
	[ -x "$bin/$b" ] || { echo "bench fetched: $bin/$b missing: run make build first" >&2; exit 1; }
done

work=$(mktemp -d /tmp/zap-bench-fetched.XXXXXX)
chmod 755 "$work"
sudoers=/etc/sudoers.d/zap-bench-fetched-$$
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null || true
	rm -f "$sudoers"
	rm -rf "$work"
}
trap cleanup EXIT
echo "$user ALL=(ALL) NOPASSWD: ALL" > "$sudoers"
chmod 440 "$sudoers"

mkdir -p "$work/srv" "$work/home" "$work/remote" "$work/inline" "$work/apt"
for i in $(seq 1 20); do
	printf 'fetched file %d\n' "$i" > "$work/srv/f$i"
done
head -c 2048 /dev/urandom > "$work/srv/key.gpg"
chown -R "$user" "$work/home" "$work/remote" "$work/inline"

# A loopback server on a port the kernel picks; its port comes back on a
# file once it listens.
runuser -u "$user" -- python3 -c '
import http.server, functools, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = http.server.HTTPServer(("127.0.0.1", 0), h)
open(sys.argv[2], "w").write(str(s.server_address[1]))
s.serve_forever()' "$work/srv" "$work/home/port" 2>/dev/null &
server=$!
for _ in $(seq 1 50); do [ -s "$work/home/port" ] && break; sleep 0.1; done
port=$(cat "$work/home/port")
base=http://127.0.0.1:$port

# config DIR KIND: 20 files (remote, tracked; or inline with the same bytes)
# and the apt_repo, its key and list under this run's directory.
config() {
	local dir=$1 kind=$2
	{
		echo 'export default (zap) => {'
		echo '	zap.target({local: true, package_manager: "apt"});'
		for i in $(seq 1 20); do
			if [ "$kind" = remote ]; then
				echo "	zap.file({id: 'f$i', path: '~/$kind/f$i', content: {type: 'remote', url: '$base/f$i'}});"
			else
				echo "	zap.file({id: 'f$i', path: '~/$kind/f$i', content: {type: 'inline', content: 'fetched file $i\\n'}});"
			fi
		done
		echo "	zap.apt_repo({id: 'repo', key_url: '$base/key.gpg', key_path: '$work/apt/$kind.gpg', list_file: '$work/apt/$kind.list', source: 'deb https://apt.example.org/ \$VERSION_CODENAME main'});"
		echo '};'
	} > "$dir/zap.ts"
	echo '{"name": "zap-bench-fetched", "private": true}' > "$dir/package.json"
	chown -R "$user" "$dir"
}
as_user() { (cd "$1" && shift && runuser -u "$user" -- env HOME="$work/home" ZAP_HOME="$work/home/.zap" PATH="$bin:$PATH" "$@"); }
for kind in remote inline; do
	config "$work/$kind" "$kind"
	as_user "$work/$kind" zap lock zap.ts > /dev/null
	as_user "$work/$kind" zap apply > /dev/null || true
	as_user "$work/$kind" zap apply --wetrun > "$work/$kind.apply" 2>&1 || { echo "bench fetched: the $kind config didn't converge:" >&2; cat "$work/$kind.apply" >&2; exit 1; }
done

# No network from here on.
kill "$server"; wait "$server" 2>/dev/null || true; server=
for kind in remote inline; do
	out=$(as_user "$work/$kind" zap plan 2>&1) || { echo "bench fetched: zap plan of the $kind config, server stopped, failed:" >&2; echo "$out" >&2; exit 1; }
	echo "$out" | grep -q '^(no changes — converged)$' || { echo "bench fetched: the $kind config isn't converged with the server stopped:" >&2; echo "$out" >&2; exit 1; }
done

ms() { local s e; s=$(date +%s%N); as_user "$1" zap plan > /dev/null; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
: > "$work/t.remote"; : > "$work/t.inline"
for _ in $(seq 1 "$runs"); do
	ms "$work/remote" >> "$work/t.remote"
	ms "$work/inline" >> "$work/t.inline"
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
r=$(median "$work/t.remote"); i=$(median "$work/t.inline")
echo "zap bench, fetched content: zap plan of a converged config, 20 files + 1 apt_repo, local target,"
echo "loopback server stopped (no network), median of $runs runs each, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %8s\n' "config" "ms"
printf '%-34s %8s\n' "20 tracked remote files + apt_repo" "$r"
printf '%-34s %8s\n' "20 inline files + apt_repo" "$i"
awk -v r="$r" -v i="$i" 'BEGIN { printf "ratio %.2fx (budget 1.2x)\n", r / i }'
