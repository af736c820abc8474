# Sourced by run.sh (local target) and ssh.sh (over SSH): the write half of
# make bench, `zap apply --wetrun` of N new files into a fresh directory,
# side by side with a hand-written floor writing the same files the same way.
#
# The caller defines:
#   bin         the binaries' directory
#   as_user     a function running its arguments as the account zap runs as,
#               in the bench's environment (HOME, PATH, ZAP_HOME)
#   zaphomes    a directory that account can write: each run gets a fresh
#               ZAP_HOME under it, so no run reuses another's preview or
#               last-run report
#   floor_cmd   a function running the floor script $1 the way the floor runs
#               (sh locally, ssh host sh over SSH), under `timeout $2`
#   clear_dir   a function removing the directory $1 the files go into
#
# Each run removes the directory, previews (`zap apply`, the dry run a wetrun
# needs as its review), then times only `zap apply --wetrun`, under a timeout:
# a run over it prints "over N s" instead of a figure. A run that doesn't
# leave exactly N files of the declared content behind fails the bench. The
# wetrun runs under /usr/bin/time (where there is one) for its peak RSS:
# the largest resident set of zap and the stages it ran, each of which
# reports its own high-water mark to the process that waits for it.

# write_config FILE TARGET DIR N OWNER: a zap.ts for TARGET (zap.target's
# argument) declaring the directory DIR and N files in it, each with 40 lines
# of content, mode 644 and owner OWNER.
write_config() {
	cat > "$1" <<TS
export default (zap) => {
	zap.target($2);
	zap.directory({id: 'bench', path: '$3'});
	for (let i = 0; i < $4; i++) {
		zap.file({
			id: \`f\${i}\`,
			path: \`$3/f\${i}.txt\`,
			content: {type: 'inline', content: \`file \${i}\\n\`.repeat(40)},
			mode: '644',
			owner: '$5',
			depends_on: ['bench'],
		});
	}
};
TS
}

# file_text I: sets text to the content write_config declares for file I, as
# printf's format (each newline written \n), with no subshell per file.
file_text() {
	printf -v text "file $1"'\\n%.0s' {1..40}
}

# write_floor_local FILE DIR N OWNER: the local floor, one shell script
# writing each file to a temporary name, then chmod, chown and rename, as
# zap's install does.
write_floor_local() {
	local i text
	{
		echo 'set -e'
		echo "mkdir -p '$2'"
		echo "cd '$2'"
		for ((i = 0; i < $3; i++)); do
			file_text "$i"
			printf "printf '%s' > f%d.txt.tmp\n" "$text" "$i"
			printf "chmod 644 f%d.txt.tmp; chown %s f%d.txt.tmp; mv f%d.txt.tmp f%d.txt\n" "$i" "$4" "$i" "$i" "$i"
		done
	} > "$1"
}

# The SSH floor is testdata/bench/floorput's: one ssh session running, per
# file, the sudo -n sh -s that zap's put runs, with the same bytes on stdin.

# check_files DIR N: DIR holds exactly N files f0.txt … with the declared
# content.
check_files() {
	local got text
	got=$(find "$1" -maxdepth 1 -type f -name 'f*.txt' 2>/dev/null | wc -l)
	[ "$got" -eq "$2" ] || { echo "bench writes: $1 holds $got files, not $2" >&2; return 1; }
	file_text $(($2 - 1))
	# shellcheck disable=SC2059
	[ "$(printf "$text")" = "$(cat "$1/f$(($2 - 1)).txt")" ] ||
		{ echo "bench writes: $1/f$(($2 - 1)).txt doesn't hold the declared content" >&2; return 1; }
}

# median CELL...: the median of the figures (ms), or the first cell that
# isn't a figure ("over N s", "failed").
median() {
	local c
	for c in "$@"; do
		case $c in *[!0-9.]*) echo "$c"; return ;; esac
	done
	printf '%s\n' "$@" | sort -n | awk -v n="$#" 'NR == int((n + 1) / 2) { print }'
}

# timed LOG WHAT CMD...: runs CMD (a timeout of limit seconds inside it)
# with its output in LOG, and sets took to its wall time in ms, "over limit
# s", or "failed" (then WHAT and LOG's last lines go to stderr).
timed() {
	local log=$1 what=$2 s e rc=0
	shift 2
	s=$(date +%s%N)
	"$@" < /dev/null > "$log" 2>&1 || rc=$?
	e=$(date +%s%N)
	case $rc in
	0) took=$(((e - s) / 1000000)) ;;
	124) took="over $limit s" ;;
	*) took=failed; echo "bench writes: $what exited $rc:" >&2; tail -n 5 "$log" >&2 ;;
	esac
}

# ok_or_changes CMD...: CMD, with its exit 2 taken as success: a dry run
# exits 2 when it has changes to show, which is the review a wetrun needs.
ok_or_changes() {
	local rc=0
	"$@" || rc=$?
	[ "$rc" -eq 2 ] && return 0
	return "$rc"
}

# wetrun_once PROJECT DIR N K: one run, printing the wetrun's wall time in ms,
# "over limit s", or "failed". When starts_log names a file the target's
# shell start appends a line to, the wetrun's count of them goes to the
# run's ZAP_HOME.starts.
wetrun_once() {
	local project=$1 dir=$2 n=$3 zh="$zaphomes/$4" took
	clear_dir "$dir"
	as_user mkdir -m 700 "$zh"
	timed "$zh.dry" "the dry run of $project" ok_or_changes as_user env -C "$project" ZAP_HOME="$zh" \
		timeout -k 10 "$limit" "$bin/zap" apply zap.ts
	case $took in *[!0-9]*) echo "$took"; return ;; esac
	local before=0
	[ -n "${starts_log:-}" ] && before=$(wc -l < "$starts_log")
	timed "$zh.wet" "the wetrun of $project" as_user env -C "$project" ZAP_HOME="$zh" \
		"${peak[@]}" -o "$zh.rss" timeout -k 10 "$limit" "$bin/zap" apply --wetrun zap.ts
	[ -n "${starts_log:-}" ] && echo $(($(wc -l < "$starts_log") - before)) > "$zh.starts"
	case $took in *[!0-9]*) ;; *) check_files "$dir" "$n" || took=failed ;; esac
	echo "$took"
}

# peak: the wrapper that writes a command's peak RSS (KB) into the file
# after its -o, and on the next line the CPU seconds (user, system) it and
# the children it waited for used (zap and its stages: the operator's side,
# which load on the machine slows but does not inflate); where
# /usr/bin/time is missing, one that drops -o FILE and runs the command, so
# the figures read "-".
if [ -x /usr/bin/time ]; then
	peak=(/usr/bin/time -f '%M
%U %S')
else
	# shellcheck disable=SC2016 # expanded by that sh
	peak=(sh -c 'shift 2; exec "$@"' peak)
fi

# rss_of FILE...: the largest peak RSS the files hold, in MB, or "-".
rss_of() {
	local f k max=0
	for f in "$@"; do
		[ -r "$f" ] || continue
		k=$(grep -E '^[0-9]+$' "$f" | tail -n 1)
		[ -n "$k" ] && ((k > max)) && max=$k
	done
	((max > 0)) || { echo -; return; }
	awk -v k="$max" 'BEGIN { printf "%.0f MB\n", k / 1024 }'
}

# cpu_of FILE...: the median of the CPU times (user + system) the files
# hold, in ms, or "-".
cpu_of() {
	local f c all=()
	for f in "$@"; do
		[ -r "$f" ] || continue
		c=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ { ms = int(($1 + $2) * 1000) } END { if (ms != "") print ms }' "$f")
		[ -n "$c" ] && all+=("$c")
	done
	[ "${#all[@]}" -gt 0 ] || { echo -; return; }
	median "${all[@]}"
}

# plan_once PROJECT K: times `zap plan` of the converged files as the
# wetrun left them, setting plan_ms (or "over N s", "failed") and plan_rss.
plan_once() {
	local project=$1 zh="$zaphomes/$2" took
	timed "$zh.plan" "the plan of $project" as_user env -C "$project" ZAP_HOME="$zh" \
		"${peak[@]}" -o "$zh.plan.rss" timeout -k 10 "$limit" "$bin/zap" plan zap.ts
	plan_ms=$took
	plan_rss=$(rss_of "$zh.plan.rss")
}

# floor_once SCRIPT DIR N: one run of the floor, as wetrun_once.
floor_once() {
	local took
	clear_dir "$2"
	timed "$1.log" "the floor $1" floor_cmd "$1" "$limit"
	case $took in *[!0-9]*) ;; *) check_files "$2" "$3" || took=failed ;; esac
	echo "$took"
}

# bench_writes N RUNS LIMIT PROJECT DIR FLOOR [plan]: RUNS runs each of zap
# and the floor (and of the script hand_floor names, when it is set: its
# median in hand_ms, else hand_ms is -), setting zap_ms and floor_ms (the medians, in ms, or the
# first run that isn't a figure), zap_rss (the wetruns' peak RSS), zap_cpu
# (their median CPU time, zap and its stages, in ms) and, with
# plan, plan_ms and plan_rss of a `zap plan` of the files the last wetrun
# converged.
bench_writes() {
	local n=$1 runs=$2 limit=$3 project=$4 dir=$5 floor=$6 z=() f=() h=() r rss=()
	for ((r = 0; r < runs; r++)); do
		z+=("$(wetrun_once "$project" "$dir" "$n" "w$n-$r-$project_tag")")
		rss+=("$zaphomes/w$n-$r-$project_tag.rss")
		if [ "${7:-}" = plan ] && [ $((r + 1)) -eq "$runs" ]; then
			case ${z[-1]} in *[!0-9]*) plan_ms=- plan_rss=- ;; *) plan_once "$project" "w$n-$r-$project_tag" ;; esac
		fi
		[ -n "$floor" ] && f+=("$(floor_once "$floor" "$dir" "$n")")
		[ -n "${hand_floor:-}" ] && h+=("$(floor_once "$hand_floor" "$dir" "$n")")
	done
	clear_dir "$dir"
	zap_ms=$(median "${z[@]}")
	floor_ms=-
	[ -n "$floor" ] && floor_ms=$(median "${f[@]}")
	hand_ms=-
	[ -n "${hand_floor:-}" ] && hand_ms=$(median "${h[@]}")
	zap_rss=$(rss_of "${rss[@]}")
	zap_cpu=$(cpu_of "${rss[@]}")
}

# project_tag tells runs of the same size for different projects apart.
project_tag=0

writes_header() {
	printf '%-10s %16s %16s %8s %6s\n' resources 'zap --wetrun' floor ratio runs
}

# writes_row N ZAP FLOOR RUNS
writes_row() {
	printf '%-10s %16s %16s %8s %6s\n' "$1" "$(ms "$2")" "$(ms "$3")" "$(ratio_of "$2" "$3")" "$4"
}

# ms CELL: a figure in ms as "N ms", anything else as it is.
ms() {
	case $1 in *[!0-9]* | '') echo "$1" ;; *) echo "$1 ms" ;; esac
}

# ratio_of A B: A / B as "N.Nx", or "-" when either isn't a figure.
ratio_of() {
	case $1$2 in
	*[!0-9]* | '') echo - ;;
	*) awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx\n", a / (b > 0 ? b : 1) }' ;;
	esac
}

# budget WHAT VALUE LIMIT OP [NOTE]: one budget line, VALUE (a number, or
# anything else for "not measured") against LIMIT with OP (<= or >=),
# saying whether it is met, then NOTE. The bench never fails on a figure.
budget() {
	local verdict
	case $2 in
	'' | *[!0-9.]*) verdict="not measured" ;;
	*) verdict=$(awk -v v="$2" -v l="$3" -v op="$4" 'BEGIN { ok = (op == "<=") ? v <= l : v >= l; print ok ? "met" : "NOT MET" }') ;;
	esac
	printf '  %-50s %8s   budget %s %-4s  %s%s\n' "$1" "$2" "$4" "$3" "$verdict" "${5:+  $5}"
}

# load_note: the load average, printed next to the figures, since the bench
# shares the machine.
load_note() {
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
}

# peer_writes N DIR CONN...: the peers writing the same N files into DIR,
# each only where it is installed, one run each, setting ansible_ms and
# pyinfra_ms (ms, or why there is no figure). CONN is "local", or "ssh PORT
# USER CONFIG" for the private sshd (become / sudo for root).
# BENCH_PEER_RUNS=0 skips both, saying so.
peer_writes() {
	local n=$1 dir=$2 conn=$3 d="$work/peer-w$1" i text
	if [ "${BENCH_PEER_RUNS:-}" = 0 ]; then
		ansible_ms="skipped: BENCH_PEER_RUNS=0" pyinfra_ms="skipped: BENCH_PEER_RUNS=0"
		return
	fi
	mkdir -p "$d"
	ansible_ms="skipped: ansible-playbook is not installed (the bench installs nothing)"
	pyinfra_ms="skipped: pyinfra is not installed (the bench installs nothing)"
	if command -v ansible-playbook >/dev/null 2>&1; then
		{
			if [ "$conn" = local ]; then
				printf -- '- hosts: localhost\n  connection: local\n'
			else
				printf -- '- hosts: all\n  become: true\n'
			fi
			printf '  gather_facts: false\n  tasks:\n'
			printf '    - file: {path: "%s", state: directory}\n' "$dir"
			for ((i = 0; i < n; i++)); do
				file_text "$i"
				printf '    - copy: {dest: "%s/f%d.txt", mode: "0644", content: "%s"}\n' "$dir" "$i" "$text"
			done
		} > "$d/play.yml"
		if [ "$conn" = local ]; then
			echo 'localhost' > "$d/hosts"
		else
			echo "127.0.0.1 ansible_port=$4 ansible_user=$5 ansible_ssh_common_args='-F $6'" > "$d/hosts"
		fi
		ansible_ms=$(peer_once "$dir" "$n" "$d" env ANSIBLE_PIPELINING=True ANSIBLE_HOST_KEY_CHECKING=False \
			ANSIBLE_REMOTE_TMP="$d/remote-tmp" ANSIBLE_LOCAL_TEMP="$d/tmp" \
			ansible-playbook -i "$d/hosts" "$d/play.yml")
	fi
	if command -v pyinfra >/dev/null 2>&1; then
		{
			echo 'import io'
			echo 'from pyinfra.operations import files'
			echo "files.directory(path='$dir')"
			echo "for i in range($n):"
			echo "    files.put(src=io.StringIO(f'file {i}\\\\n' * 40), dest=f'$dir/f{i}.txt', mode='644')"
		} > "$d/deploy.py"
		if [ "$conn" = local ]; then
			pyinfra_ms=$(peer_once "$dir" "$n" "$d" pyinfra -y @local "$d/deploy.py")
		else
			pyinfra_ms=$(peer_once "$dir" "$n" "$d" env SSH_CONFIG="$6" pyinfra -y --ssh-port "$4" --ssh-user "$5" --sudo 127.0.0.1 "$d/deploy.py")
		fi
	fi
}

# peer_once DIR N PEERDIR CMD...: one timed run of a peer as the bench's
# account: its wall time in ms, or "over N s" / "failed".
peer_once() {
	local dir=$1 n=$2 s e rc=0
	shift 3
	chown -R "$(as_user id -un)" "$work"/peer-w* 2>/dev/null || true
	clear_dir "$dir"
	s=$(date +%s%N)
	as_user timeout -k 10 "${BENCH_TIMEOUT:-1800}" "$@" > /dev/null 2>&1 || rc=$?
	e=$(date +%s%N)
	case $rc in
	0) ;;
	124) echo "over ${BENCH_TIMEOUT:-1800} s"; return ;;
	*) echo "failed (exit $rc)"; return ;;
	esac
	check_files "$dir" "$n" || { echo failed; return; }
	echo "$(((e - s) / 1000000))"
}
