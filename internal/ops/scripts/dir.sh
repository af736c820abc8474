# zap dir PATH MODE OWNER GROUP
# Makes a directory: each missing one on the way, one at a time from the top,
# with the mode a plain mkdir gives; a link in a directory on the way is
# followed. Then MODE, OWNER and GROUP (each may be empty: left as it is) are
# set on the directory itself, through an open descriptor. A symbolic link at
# PATH is refused (exit 94) and what it points to is left alone; so is
# anything on the way that isn't a directory.
set -eu
path=$1 mode=$2 owner=$3 group=$4
case $path in
/*) ;;
*) echo "zap dir: $path is not an absolute path" >&2; exit 2 ;;
esac
if [ -L "$path" ]; then
	echo "zap dir: $path is a symbolic link" >&2
	exit 94
fi
at= rest=${path#/}
while [ -n "$rest" ]; do
	case $rest in
	*/*) part=${rest%%/*} rest=${rest#*/} ;;
	*) part=$rest rest= ;;
	esac
	[ -n "$part" ] || continue
	at=$at/$part
	[ ! -d "$at" ] || continue
	if [ -e "$at" ] || [ -L "$at" ]; then
		echo "zap dir: $at is in the way: it is not a directory" >&2
		exit 94
	fi
	mkdir -- "$at" || [ -d "$at" ]
done
[ -n "$mode$owner$group" ] || exit 0
exec 3<"$path"
if [ -L "$path" ] || [ "$(stat -c '%d:%i' -- "$path")" != "$(stat -L -c '%d:%i' /proc/self/fd/3)" ]; then
	echo "zap dir: $path changed while it was made" >&2
	exit 94
fi
if [ -n "$owner$group" ]; then chown -- "$owner${group:+:$group}" /proc/self/fd/3; fi
if [ -n "$mode" ]; then chmod -- "$mode" /proc/self/fd/3; fi
