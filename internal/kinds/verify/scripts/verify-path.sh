# zap verify-path PATH FILE_TYPE MODE OWNER NOT_EMPTY
# Checks one path_exists assertion of a verify, as the connecting user and
# following a link at PATH: that something is there and, for each argument
# that isn't empty, that it is a regular file or a directory (FILE_TYPE file
# or directory), that its permission bits are MODE (octal; 0644 and 644 are
# the same), that OWNER (a name) owns it, and that its size is above zero
# (NOT_EMPTY not_empty; test -s). It changes nothing.
# Exit 0: the assertion holds. Exit 1: it doesn't; each line on stdout says
# what is there instead. Any other exit: it couldn't be checked.
set -u
[ "$#" -eq 5 ] || { echo "zap verify-path: want 5 arguments, got $#" >&2; exit 2; }
path=$1 type=$2 mode=$3 owner=$4 nonempty=$5
if [ ! -e "$path" ]; then
	if [ -L "$path" ]; then
		echo "a symbolic link to nothing"
	else
		echo "nothing there (or it is under a directory $(id -un 2>/dev/null || echo this account) can't search)"
	fi
	exit 1
fi
failed=0
case $type in
'') ;;
file)
	if [ ! -f "$path" ]; then
		if [ -d "$path" ]; then echo "a directory, not a regular file"; else echo "not a regular file"; fi
		failed=1
	fi
	;;
directory)
	if [ ! -d "$path" ]; then
		if [ -f "$path" ]; then echo "a regular file, not a directory"; else echo "not a directory"; fi
		failed=1
	fi
	;;
*) echo "zap verify-path: $type is not a file type (want file or directory)" >&2; exit 2 ;;
esac
# stripzeros prints its octal argument without leading zeros (0 for none).
stripzeros() {
	s=$1
	while :; do
		case $s in
		0?*) s=${s#0} ;;
		*) break ;;
		esac
	done
	printf '%s\n' "$s"
}
if [ -n "$mode" ]; then
	got=$(stat -L -c '%a' -- "$path") || { echo "zap verify-path: can't read the mode of $path" >&2; exit 2; }
	if [ "$(stripzeros "$got")" != "$(stripzeros "$mode")" ]; then
		echo "mode $got"
		failed=1
	fi
fi
if [ -n "$owner" ]; then
	got=$(stat -L -c '%U' -- "$path") || { echo "zap verify-path: can't read the owner of $path" >&2; exit 2; }
	if [ "$got" != "$owner" ]; then
		echo "owner $got"
		failed=1
	fi
fi
if [ -n "$nonempty" ] && [ ! -s "$path" ]; then
	echo "empty (size 0)"
	failed=1
fi
exit "$failed"
