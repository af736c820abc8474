# zap dir PATH MODE OWNER GROUP
# Makes a directory and sets its declared mode, owner and group.
#
# The script works inside the directories of PATH, entered one name at a
# time from / (cd -P, a link on the way followed as the kernel follows it);
# every name below is read in the directory it is in. A missing directory,
# PATH's own included, is made there (mkdir, no -p, the mode a plain mkdir
# gives), entered, and must be the empty directory of the writer's just
# made, at its name in the directory it was made in (exit 94); it is given
# that directory's owner and group, unless it is below a shared directory:
# one with its sticky bit set or that every account may write, on the path
# as written, links read as what they lead to, or walking up by .. from
# where the path leads. Anything on the way that isn't a directory is in the
# way (exit 94).
#
# Then MODE, OWNER and GROUP (each may be empty: left as it is) are set on
# the directory entered (.), never through a name: a symbolic link at PATH
# is refused (exit 94) and what it points to is left alone, and so is a
# directory that isn't, once entered, the one at PATH in its parent.
set -eu
zap=dir
#@include walk
zap_dir() {
	path=$1 mode=$2 owner=$3 group=$4
	zap_name "$path" "a directory Zap can make"
	zap_into "${dir:-/}" make
	at=$path
	if [ -L "./$name" ]; then
		zap_fail 94 "$path is a symbolic link"
	elif [ -d "./$name" ]; then
		up=${here%% *}
		cd -P -- "./$name"
		st=$(stat -c '%d:%i' . .. "../$name" 2>/dev/null) || st=
		set -- $st
		if [ $# != 3 ] || [ "$2" != "$up" ] || [ "$3" != "$1" ]; then
			zap_fail 94 "$path changed while it was entered: it is not the directory at its name"
		fi
	elif [ -e "./$name" ]; then
		zap_fail 94 "$path is in the way: it is not a directory"
	else
		zap_mkdir "$name"
	fi
	zap_chown . "$owner" "$group" "" ""
	if [ -n "$mode" ]; then
		# Five digits: GNU chmod keeps a directory's set-id bits otherwise.
		chmod -- "$(printf '%05o' $((0$mode)))" .
	fi
}
zap_dir "$@"
