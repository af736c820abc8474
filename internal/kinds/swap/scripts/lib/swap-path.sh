# The checks swap-make and swap-on share, put in place where each says
# `#@include swap-path` (so each still travels whole; its text is what
# plan_hash covers). The including script sets zap (its name) first.
unset CDPATH
PATH=${PATH:-/usr/bin:/bin}:/usr/local/sbin:/usr/sbin:/sbin
zap_fail() {
	echo "zap $zap: $2" >&2
	exit "$1"
}
# zap_swap_path PATH: refuses (exit 94, nothing made) a PATH whose
# directories, up to /, as PATH names them (each as it leads) and as its
# directory resolves, aren't each root's and writable by no group or other
# account, and a PATH that is a symbolic link or anything but a regular
# file. On return the shell is in PATH's directory as it resolves (cd -P),
# name is PATH's last name, and real is PATH as it resolves. A PATH that
# isn't a plain absolute file path without whitespace exits 93.
zap_swap_path() {
	p=$1
	case $p in
	/*) ;;
	*) zap_fail 93 "$p is not an absolute path" ;;
	esac
	case $p/ in
	*//* | */./* | */../*) zap_fail 93 "$p is not a plain file path" ;;
	esac
	case $p in
	*[[:space:]]*) zap_fail 93 "$p holds whitespace, which an /etc/fstab field can't" ;;
	esac
	name=${p##*/} dir=${p%/*}
	[ -n "$dir" ] || dir=/
	cd -P -- "$dir" 2>/dev/null || zap_fail 94 "refused $p: its directory $dir is missing or can't be entered"
	res=$(pwd -P)
	real=${res%/}/$name
	# /, then each directory as PATH names it, then as it resolves, each
	# from the deepest up.
	set -- /
	for w in "$dir" "$res"; do
		while [ -n "${w#/}" ]; do
			set -- "$@" "$w"
			w=${w%/*}
		done
	done
	for d do
		st=$(stat -L -c '%u %a' -- "$d" 2>/dev/null) || zap_fail 94 "refused $p: can't read the directory $d"
		u=${st%% *} m=${st#* }
		[ "$u" = 0 ] || zap_fail 94 "refused $p: the directory $d is owned by uid $u, not root, who could put a link at the path or re-point a directory above it"
		[ $((0$m & 022)) -eq 0 ] || zap_fail 94 "refused $p: the directory $d can be written by its group or others (mode $m), who could put a link at the path or re-point a directory above it"
	done
	if [ -L "./$name" ]; then
		zap_fail 94 "refused $p: it is a symbolic link, and mkswap would format whatever it points at"
	elif [ -e "./$name" ] && [ ! -f "./$name" ]; then
		zap_fail 94 "refused $p: it is in the way: not a regular file"
	fi
}
# zap_swap_active: true when /proc/swaps lists the path (as it resolves,
# or as named) as active, each compared with its backslashes written as
# the kernel writes them (\134); the path holds no whitespace.
zap_swap_active() {
	[ -r /proc/swaps ] || zap_fail 1 "can't read /proc/swaps"
	ZAP_A=$(zap_octal "$real") ZAP_B=$(zap_octal "$p") awk \
		'NR > 1 && ($1 == ENVIRON["ZAP_A"] || $1 == ENVIRON["ZAP_B"]) { found = 1 } END { exit !found }' /proc/swaps
}
# zap_octal S: S with each backslash written \134.
zap_octal() {
	e= r=$1
	while :; do
		case $r in
		*\\*) e=$e${r%%\\*}'\134' r=${r#*\\} ;;
		*) break ;;
		esac
	done
	printf '%s\n' "$e$r"
}
