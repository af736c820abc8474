# zap link PATH TARGET
# Makes PATH a symbolic link to TARGET.
#
# The script works inside the directories of PATH, entered one name at a
# time from / (cd -P, a link on the way followed as the kernel follows it);
# every name below is read in the directory it is in. A missing directory is
# made there (mkdir, no -p, the mode a plain mkdir gives), entered, and must
# be the empty directory of the writer's just made, at its name in the
# directory it was made in (exit 94); it is given that directory's owner and
# group, unless it is below a shared directory: one with its sticky bit set
# or that every account may write, on the path as written, links read as
# what they lead to, or walking up by .. from where the path leads.
#
# The link is made under a new name beside PATH (.zap.XXXXXX, ln -s -T, which
# never makes it inside what is at that name) and renamed into place,
# replacing a regular file or another link at PATH (where mv can't rename
# over a link to a directory, as BusyBox's can't, that link is removed
# first). A directory at PATH fails (exit 94).
set -eu
unset CDPATH
zap=link me=$(id -u)
# GNU chown reads digits as a name first unless they start with +.
plus=
v=$(chown --version 2>/dev/null) || v=
case $v in *coreutils*) plus=+ ;; esac
zap_fail() {
	echo "zap $zap: $2" >&2
	exit "$1"
}
# zap_id NAME: NAME as chown reads it: digits only are a numeric id.
zap_id() {
	case $1 in
	'' | *[!0-9]*) printf '%s' "$1" ;;
	*) printf '%s%s' "$plus" "$1" ;;
	esac
}
# zap_chown FILE UID GID: gives FILE (owned CUID:CGID) the owner UID and
# group GID, each when it is set and differs.
zap_chown() {
	u=$2 g=$3
	set -- "$1" $(stat -L -c '%u %g' -- "$1")
	[ "$u" != "$2" ] || u=
	[ "$g" != "$3" ] || g=
	if [ -n "$u$g" ]; then chown -- "$(zap_id "$u")${g:+:$(zap_id "$g")}" "$1"; fi
}
# zap_shared MODE: true when an octal MODE has the sticky bit or the write
# bit for others.
zap_shared() { [ $((0$1 & 01002)) -ne 0 ]; }
# zap_walkup: below=1 when the current directory or one above it by .. is
# shared.
zap_walkup() {
	up=.
	while :; do
		st=$(stat -c '%a %d:%i' -- "$up" "$up/..")
		set -- $st
		[ $# -eq 4 ] || zap_fail 1 "can't read the directories above $at"
		if zap_shared "$1"; then
			below=1
			return 0
		fi
		[ "$2" != "$4" ] || return 0
		up=$up/..
	done
}
# zap_mkdir NAME: makes NAME in the current directory and enters it; see
# the top.
zap_mkdir() {
	st=$(stat -c '%d:%i %u %g' .)
	set -- "$1" $st
	if err=$(mkdir -- "./$1" 2>&1); then
		cd -P -- "./$1"
		st=$(stat -c '%d:%i %u' . .. "../$1")
		set -- "$@" $st
		if [ "$6" != "$me" ] || [ "$7" != "$2" ] || [ "$9" != "$5" ] || [ -n "$(ls -A .)" ]; then
			zap_fail 94 "$at changed while it was made: it is not the empty directory made there"
		fi
		[ "$below" = 1 ] || zap_chown . "$3" "$4"
	elif [ -d "./$1" ]; then
		# Made by someone else meanwhile: used as found.
		cd -P -- "./$1"
	elif [ -e "./$1" ] || [ -L "./$1" ]; then
		zap_fail 94 "$at is in the way: it is not a directory"
	else
		zap_fail 1 "make the directory $at: ${err##*: }"
	fi
}
# zap_into DIR [make]: enters the absolute directory DIR (see the top), and
# sets below. Without make, a missing directory sets missing=1.
zap_into() {
	cd /
	below=0 walked=0 missing=0 at= rest=${1#/}
	if zap_shared "$(stat -c %a .)"; then below=1; fi
	while [ -n "$rest" ]; do
		case $rest in
		*/*) part=${rest%%/*} rest=${rest#*/} ;;
		*) part=$rest rest= ;;
		esac
		case $part in '' | .) continue ;; esac
		at=$at/$part
		if [ -d "./$part" ]; then
			cd -P -- "./$part"
		elif [ -e "./$part" ] || [ -L "./$part" ]; then
			zap_fail 94 "$at is in the way: it is not a directory"
		elif [ -z "${2-}" ]; then
			missing=1
			return 0
		else
			if [ "$walked" = 0 ] && [ "$below" = 0 ]; then zap_walkup; fi
			walked=1
			zap_mkdir "$part"
		fi
		if zap_shared "$(stat -c %a .)"; then below=1; fi
	done
	if [ "$walked" = 0 ] && [ "$below" = 0 ]; then zap_walkup; fi
	return 0
}
zap_link() {
	path=$1 target=$2
	case $path in
	/*) ;;
	*) zap_fail 2 "$path is not an absolute path" ;;
	esac
	name=${path##*/} dir=${path%/*}
	case $name in
	'' | . | ..) zap_fail 2 "$path doesn't name a link" ;;
	esac
	zap_into "${dir:-/}" make
	if [ -d "./$name" ] && [ ! -L "./$name" ]; then
		zap_fail 94 "$path is a directory"
	fi
	tmp=$(mktemp -u ./.zap.XXXXXX)
	ln -s -T -- "$target" "$tmp"
	trap 'rm -f -- "$tmp"' EXIT
	trap 'exit 1' HUP INT TERM
	if ! mv -f -T -- "$tmp" "./$name" 2>/dev/null; then
		if [ -d "./$name" ] && [ ! -L "./$name" ]; then
			zap_fail 94 "$path is a directory"
		fi
		if [ -L "./$name" ]; then rm -f -- "./$name"; fi
		mv -f -T -- "$tmp" "./$name"
	fi
	trap - EXIT
}
zap_link "$@"
