#!/usr/bin/env bash
# make bench: the speed of `zap plan` on a converged config of 200 files on
# this machine, stage by stage, side by side with the floor (one hand-written
# shell script doing the same reads) and, when it is installed, the peer
# (ansible-playbook --check doing the same comparison).
#
# Budget (issue 2): zap plan of a converged 200-file local config, median
# at most 0.3 s.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/bin
runs=${BENCH_RUNS:-21}
files=${BENCH_FILES:-200}

work=$(mktemp -d /tmp/zap-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home ZAP_HOME=$work/zaphome
mkdir -p "$HOME" "$work/project"
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

if command -v ansible-playbook >/dev/null 2>&1; then
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
	row "peer: ansible-playbook --check" "$(median_ms ansible-playbook --check -i localhost, peer/play.yml)"
	runs=$runs_saved
else
	row "peer: ansible-playbook --check" "n/a (not installed: apt-get install ansible)"
fi
echo
echo "budget: zap plan median <= 300 ms"
