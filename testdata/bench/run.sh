#!/usr/bin/env bash
# make bench: the speed of `zap plan` on a converged config of 200 files on
# this machine, stage by stage, side by side with the floor (one hand-written
# shell script doing the same reads) and, when it is installed, the peer
# (ansible-playbook --check doing the same comparison). Then the writes
# (writes.sh): `zap apply --wetrun` of 200 and 2,000 new files against a
# hand-written shell loop writing the same files, and with BENCH_BIG=1
# 20,000, whose wetrun and plan are given with their peak RSS.
#
# BENCH_PART=reads or writes runs only that half (default all);
# BENCH_WRITE_SIZES (default "200 2000", and 20000 with BENCH_BIG=1),
# BENCH_WRITE_RUNS (default 5 for 200 files, 3 for 2,000; 20,000 always
# once) and BENCH_TIMEOUT (seconds per zap run, default 600) shape the
# writes. BENCH_PEER_RUNS (default 3 for the read peer; the write peers run
# once) at 0 skips the peers, saying so.
#
# Budget (issue 2): zap plan of a converged 200-file local config, median
# at most 0.3 s.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# zap-eval never evaluates as root, and refuses a project root owns: run as
# root, the bench runs itself as BENCH_USER (default zaptest, the account
# the tests make) instead.
if [ "$(id -u)" = 0 ]; then
	user=${BENCH_USER:-zaptest}
	id "$user" >/dev/null 2>&1 || { echo "bench: run as root, it runs as $user, and there is no such account: set BENCH_USER" >&2; exit 1; }
	exec runuser -u "$user" -- env BENCH_RUNS="${BENCH_RUNS:-}" BENCH_FILES="${BENCH_FILES:-}" BENCH_PART="${BENCH_PART:-}" \
		BENCH_WRITE_SIZES="${BENCH_WRITE_SIZES:-}" BENCH_BIG="${BENCH_BIG:-}" BENCH_WRITE_RUNS="${BENCH_WRITE_RUNS:-}" BENCH_TIMEOUT="${BENCH_TIMEOUT:-}" \
		BENCH_EVAL_MODULES="${BENCH_EVAL_MODULES:-}" BENCH_EVAL_PER_MODULE="${BENCH_EVAL_PER_MODULE:-}" "$0" "$@"
fi
bin=$root/bin
runs=${BENCH_RUNS:-21}
files=${BENCH_FILES:-200}
part=${BENCH_PART:-all}
case $part in all | reads | writes) ;; *) echo "bench: BENCH_PART is $part, not all, reads or writes" >&2; exit 2 ;; esac

work=$(mktemp -d /tmp/zap-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home ZAP_HOME=$work/zaphome
mkdir -p "$HOME" "$work/project"

if [ "$part" != reads ]; then
	# shellcheck source=writes.sh
	. "$root/testdata/bench/writes.sh"
	as_user() { "$@"; }
	floor_cmd() { timeout -k 10 "$2" sh "$1"; }
	clear_dir() { rm -rf "$1"; }
	zaphomes=$work/zaphomes
	mkdir -m 700 "$zaphomes"
	me=$(id -un)
	echo "zap bench, writes: N new files (content, mode 644, owner $me) into a fresh directory, local target"
	echo "each run: a fresh ZAP_HOME, the directory removed, zap apply (the dry run a wetrun needs as its"
	echo "review, not timed), then zap apply --wetrun, timed alone; median of the runs"
	echo "floor: one shell script writing each file to a temporary name, chmod, chown, rename"
	echo
	sizes=${BENCH_WRITE_SIZES:-200 2000}
	[ -z "${BENCH_WRITE_SIZES:-}" ] && [ "${BENCH_BIG:-}" = 1 ] && sizes="$sizes 20000"
	printf '%-10s %16s %16s %8s %6s %10s\n' resources 'zap --wetrun' floor ratio runs 'peak RSS'
	big_rows=()
	for n in $sizes; do
		mkdir -p "$work/w$n"
		echo '{"name": "zap-bench-writes", "private": true}' > "$work/w$n/package.json"
		# shellcheck disable=SC2088 # the tilde is zap's, expanded against the target's home
		write_config "$work/w$n/zap.ts" '{local: true}' '~/writes' "$n" "$me"
		(cd "$work/w$n" && "$bin/zap" lock zap.ts > /dev/null)
		write_floor_local "$work/w$n/floor.sh" "$HOME/writes" "$n" "$me"
		r=${BENCH_WRITE_RUNS:-5}
		[ "$n" -gt 200 ] && r=${BENCH_WRITE_RUNS:-3}
		[ "$n" -ge 20000 ] && r=1
		with=
		[ "$n" -ge 20000 ] && with=plan
		bench_writes "$n" "$r" "${BENCH_TIMEOUT:-600}" "$work/w$n" "$HOME/writes" "$work/w$n/floor.sh" "$with"
		printf '%-10s %16s %16s %8s %6s %10s\n' "$n" "$(ms "$zap_ms")" "$(ms "$floor_ms")" "$(ratio_of "$zap_ms" "$floor_ms")" "$r" "$zap_rss"
		[ -n "$with" ] && big_rows+=("$(printf '%-10s %16s %16s %8s %6s %10s' "$n plan" "$(ms "$plan_ms")" - - 1 "$plan_rss")")
	done
	for row in "${big_rows[@]}"; do echo "$row"; done
	case " $sizes " in
	*" 20000 "*) ;;
	*) echo "(20,000 files: skipped; BENCH_BIG=1 runs their wetrun and plan, with peak RSS)" ;;
	esac
	load_note
	peer_writes "$files" "$HOME/writes" local
	echo "peer: ansible-playbook (copy tasks), $files files: $(ms "$ansible_ms")"
	echo "peer: pyinfra (files.put), $files files: $(ms "$pyinfra_ms")"
	echo
fi
[ "$part" = writes ] && exit 0

cd "$work/project"
echo '{"name": "zap-bench", "private": true}' > package.json
cat > zap.ts <<TS
export default (zap) => {
	zap.target({local: true});
	zap.directory({id: 'bench', path: '~/bench'});
	for (let i = 0; i < $files; i++) {
		zap.file({
			id: \`f\${i}\`,
			path: \`~/bench/f\${i}.txt\`,
			content: {type: 'inline', content: \`file \${i}\\n\`.repeat(40)},
			mode: '644',
			depends_on: ['bench'],
		});
	}
};
TS

# Pin the evaluator, and converge once, so every measured pass reads a
# converged machine.
"$bin/zap" lock zap.ts >/dev/null
"$bin/zap" plan zap.ts >/dev/null
"$bin/zap" apply --wetrun zap.ts >/dev/null
"$bin/zap" apply zap.ts >/dev/null

"$bin/zap-eval" zap.ts > decl.json
"$bin/zap-detect" < decl.json > obs.json
"$bin/zap-plan" < obs.json > plan.json

# The floor: one shell script reading what detection reads (the type, mode
# and owner of each path, and the SHA-512 of each file), with one stat and
# one sha512sum over all the files.
{
	echo 'cd "$HOME/bench" || exit 1'
	echo 'test -d "$HOME/bench"'
	printf "stat -c '%%F %%a %%U %%G %%h'"
	for ((i = 0; i < files; i++)); do printf ' f%d.txt' "$i"; done
	echo
	printf 'sha512sum'
	for ((i = 0; i < files; i++)); do printf ' f%d.txt' "$i"; done
	echo
} > floor.sh

# median_ms CMD...: run CMD $runs times, print the median wall time in ms.
median_ms() {
	local t=() s e
	for ((r = 0; r < runs; r++)); do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 || { echo "bench: $* failed" >&2; exit 1; }
		e=$(date +%s%N)
		t+=($(((e - s) / 1000)))
	done
	printf '%s\n' "${t[@]}" | sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2) { printf "%.1f\n", $1 / 1000 }'
}

row() { printf '%-44s %10s ms\n' "$1" "$2"; }

echo "zap bench: $files files, converged, local target, median of $runs runs"
echo
row "zap plan (whole command)" "$(median_ms "$bin/zap" plan zap.ts)"
row "  zap-eval zap.ts" "$(median_ms "$bin/zap-eval" zap.ts)"
row "  zap-detect < declaration" "$(median_ms sh -c "'$bin/zap-detect' < decl.json")"
row "  zap-plan < observations" "$(median_ms sh -c "'$bin/zap-plan' < obs.json")"
row "floor: one shell script, same reads" "$(median_ms sh floor.sh)"

if [ "${BENCH_PEER_RUNS:-}" = 0 ]; then
	row "peer: ansible-playbook --check" "skipped (BENCH_PEER_RUNS=0)"
elif command -v ansible-playbook >/dev/null 2>&1; then
	mkdir -p peer
	{
		echo '- hosts: localhost'
		echo '  connection: local'
		echo '  gather_facts: false'
		echo '  tasks:'
		for ((i = 0; i < files; i++)); do
			printf '    - copy: {dest: "%s/bench/f%d.txt", mode: "0644", content: "%s"}\n' "$HOME" "$i" \
				"$(for ((k = 0; k < 40; k++)); do printf 'file %d\\n' "$i"; done)"
		done
	} > peer/play.yml
	runs_saved=$runs
	runs=${BENCH_PEER_RUNS:-3}
	row "peer: ansible-playbook --check" "$(median_ms env ANSIBLE_REMOTE_TMP="$work/ansible-remote" ANSIBLE_LOCAL_TMP="$work/ansible-local" ansible-playbook --check -i localhost, peer/play.yml)"
	runs=$runs_saved
else
	row "peer: ansible-playbook --check" "n/a (not installed: apt-get install ansible)"
fi
echo
echo "budget: zap plan median <= 300 ms"

# The evaluator's budgets (issue 3): zap-eval of a tiny config, and of one
# declaring 2,000 resources across 20 imported modules; wall time the median
# of $runs runs, peak RSS the largest of them (/usr/bin/time -f %M, KB).
eval_modules=${BENCH_EVAL_MODULES:-20}
eval_per=${BENCH_EVAL_PER_MODULE:-100}
mkdir -p "$work/eval/tiny" "$work/eval/big/modules"
cd "$work/eval/tiny"
echo '{"name": "zap-bench-tiny", "private": true}' > package.json
cat > zap.ts <<'TS'
export default (zap) => {
	zap.target({local: true});
	zap.directory({id: 'tiny', path: '~/tiny', mode: '755'});
};
TS
cd "$work/eval/big"
echo '{"name": "zap-bench-big", "private": true, "type": "module"}' > package.json
for ((m = 0; m < eval_modules; m++)); do
	cat > "modules/m$m.ts" <<TS
// Module $m: a directory and $((eval_per - 1)) files in it, with typed options.
interface Site {
	name: string;
	port: number;
	aliases: string[];
}

const sites: Site[] = [];
for (let i = 0; i < $((eval_per - 1)); i++) {
	sites.push({name: \`m$m-site\${i}\`, port: 8000 + i, aliases: [\`www\${i}.example.org\`, \`alt\${i}.example.org\`]});
}

export function declare(zap: any): void {
	zap.directory({id: 'm$m', path: '~/bench-eval/m$m', mode: '755'});
	for (const s of sites) {
		zap.file({
			id: s.name,
			path: \`~/bench-eval/m$m/\${s.name}.conf\`,
			content: {type: 'inline', content: \`server_name \${s.name} \${s.aliases.join(' ')};\\nlisten \${s.port};\\n\`},
			mode: '644',
			depends_on: ['m$m'],
		});
	}
}
TS
done
{
	for ((m = 0; m < eval_modules; m++)); do echo "import {declare as m$m} from './modules/m$m.ts';"; done
	echo 'export default (zap) => {'
	echo '	zap.target({local: true});'
	for ((m = 0; m < eval_modules; m++)); do echo "	m$m(zap);"; done
	echo '};'
} > zap.ts
"$bin/zap-eval" zap.ts > decl.json
resources=$(grep -o '"id":' decl.json | wc -l)
[ "$resources" -eq $((eval_modules * eval_per)) ] || { echo "bench: the big config declared $resources resources" >&2; exit 1; }

# peak_mb CMD...: the largest peak RSS of $runs runs of CMD, in MB.
peak_mb() {
	local k max=0
	for ((r = 0; r < runs; r++)); do
		k=$(/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1)
		((k > max)) && max=$k
	done
	awk -v k="$max" 'BEGIN { printf "%.1f\n", k / 1024 }'
}
mbrow() { printf '%-44s %10s MB\n' "$1" "$2"; }

echo
echo "zap-eval: median of $runs runs, peak RSS the largest"
echo
row "zap-eval, tiny config" "$(median_ms "$bin/zap-eval" "$work/eval/tiny/zap.ts")"
mbrow "  peak RSS" "$(peak_mb "$bin/zap-eval" "$work/eval/tiny/zap.ts")"
row "zap-eval, $resources resources in $eval_modules modules" "$(median_ms "$bin/zap-eval" "$work/eval/big/zap.ts")"
mbrow "  peak RSS" "$(peak_mb "$bin/zap-eval" "$work/eval/big/zap.ts")"
echo
echo "budget: zap-eval tiny <= 30 ms; 2,000 resources <= 300 ms and <= 100 MB peak RSS"
