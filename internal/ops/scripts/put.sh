# zap put PATH MODE OWNER GROUP SHA512 LENGTH [snapshot|remove]
# Installs a file whole. The content follows this script on stdin, as the
# body of the here-document the last line opens: base64 lines, then the line
# __zap_content_end__ (ops.PutInput writes the stream). The shell reads that
# body itself, so no byte is lost to its read-ahead and any byte travels.
#
# The script works inside the directories of PATH, entered one name at a
# time from / (cd -P, a link on the way followed as the kernel follows it);
# every name below is read in the directory it is in. A missing directory is
# made there (mkdir, no -p), entered, and must be the empty directory of the
# writer's just made, at its name in the directory it was made in (exit 94);
# it is given that directory's owner and group, unless it is below a shared
# directory: one with its sticky bit set or that every account may write,
# on the path as written, links read as what they lead to, or walking up by
# .. from where the path leads.
#
# The content is staged beside PATH in a new file (mktemp .zap.XXXXXX,
# mode 600 set on it whatever the umask or a default access list gave) held
# open (read only: no open here creates a file); before a byte is written it
# must be a regular file of the writer's, empty, with one name, and still
# the file at the staged name (exit 94). The bytes are written through
# /proc/self/fd, checked against LENGTH and SHA512 (exit 93 when they aren't
# what was sent), given OWNER, GROUP and MODE through the open file, and,
# the staged name checked to still be that file, renamed into place: a link
# at PATH is replaced, never followed; a directory there fails (exit 94). On
# any failure the staged file, if the name is still it, is removed and PATH
# is left as it was.
#
# Each of MODE, OWNER and GROUP may be empty: then it is kept from the
# regular file PATH holds (read without following a link; the mode without
# set-id or sticky bits), or for a new file it is 0666 less the umask and
# the directory's owner and group. A symbolic link, anything else that isn't
# a regular file, a file with a second name, and anything below a shared
# directory keep nothing: the new file is the writer's. A mode is never kept
# from a file with an access list (getfacl, else ls's +): that is refused
# (exit 93) until MODE is given. An OWNER or GROUP of digits only is a
# numeric id (a declared one is a name).
#
# With snapshot, before anything is written the file at PATH is read through
# one descriptor and printed on stdout: the line "zap-snapshot none" when
# there is none, else "zap-snapshot MODE UID GID" and its bytes. A link there,
# anything but a regular file (refused before it is opened: a fifo is never
# waited on), or a file that isn't the one at the name once opened is exit
# 94, a file over 16 MiB exit 93, and nothing is written. With remove, what
# PATH holds (not a directory) is removed, and nothing is written: the
# content must be empty.
set -eu
unset CDPATH
zap=put me=$(id -u)
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
# zap_snapshot: prints the file at the name (see the top).
zap_snapshot() {
	if [ -L "./$name" ]; then
		zap_fail 94 "$path is a symbolic link, which a validated write can't put back"
	fi
	if [ ! -e "./$name" ]; then
		echo "zap-snapshot none"
		return 0
	fi
	st=$(stat -c '%f' -- "./$name")
	if [ $((0x$st & 0170000)) -ne $((0100000)) ]; then
		zap_fail 94 "$path is not a regular file, which a validated write can't put back"
	fi
	exec 4<"./$name"
	st=$(stat -L -c '%f %a %u %g %s %d:%i' /proc/self/fd/4)
	set -- $st
	if [ $((0x$1 & 0170000)) -ne $((0100000)) ] || [ "$6" != "$(stat -c '%d:%i' -- "./$name")" ]; then
		zap_fail 94 "$path changed while it was read: it is not the regular file at its name"
	fi
	if [ "$5" -gt 16777216 ]; then
		zap_fail 93 "$path is over 16 MiB, which a validated write can't put back"
	fi
	echo "zap-snapshot $2 $3 $4"
	head -c 16777217 <&4
	exec 4<&-
}
# zap_unstage: removes the staged file, if the name is still it.
zap_unstage() {
	if [ -n "$staged" ] && [ "$(stat -c '%d:%i' -- "$tmp" 2>/dev/null)" = "$staged" ]; then
		rm -f -- "$tmp"
	fi
	return 0
}
zap_put() {
	path=$1 mode=$2 owner=$3 group=$4 want=$5 length=$6 what=${7-}
	case $path in
	/*) ;;
	*) zap_fail 2 "$path is not an absolute path" ;;
	esac
	name=${path##*/} dir=${path%/*}
	case $name in
	'' | . | ..) zap_fail 2 "$path doesn't name a file" ;;
	esac
	case $what in
	'' | snapshot) ;;
	remove)
		zap_into "${dir:-/}"
		[ "$missing" = 0 ] || return 0
		if [ -d "./$name" ] && [ ! -L "./$name" ]; then
			zap_fail 94 "$path is a directory"
		fi
		rm -f -- "./$name"
		return 0
		;;
	*) zap_fail 2 "a put can't $what" ;;
	esac
	zap_into "${dir:-/}" make
	if [ -d "./$name" ] && [ ! -L "./$name" ]; then
		zap_fail 94 "$path is a directory"
	fi
	if [ "$what" = snapshot ]; then zap_snapshot; fi
	# What the new file keeps when MODE, OWNER or GROUP is unset.
	keep_mode=$(printf '%o' $((0666 & ~0$(umask)))) keep_uid= keep_gid=
	if [ -L "./$name" ]; then
		:
	elif [ -e "./$name" ]; then
		st=$(stat -c '%f %a %u %g %h' -- "./$name")
		set -- $st
		if [ $((0x$1 & 0170000)) -eq $((0100000)) ] && [ "$5" = 1 ] && [ "$below" = 0 ]; then
			keep_mode=$(printf '%o' $((0$2 & 0777))) keep_uid=$3 keep_gid=$4
			if [ -z "$mode" ]; then
				if command -v getfacl >/dev/null 2>&1; then
					acl=$(getfacl -c -s -p -- "./$name")
				else
					acl=$(ls -ld -- "./$name")
					case $acl in
					??????????+*) ;;
					*) acl= ;;
					esac
				fi
				if [ -n "$acl" ]; then
					zap_fail 93 "$path has an access list, so its mode bits aren't its mode and can't be kept: declare mode"
				fi
			fi
		fi
	elif [ "$below" = 0 ]; then
		st=$(stat -c '%u %g' .)
		set -- $st
		keep_uid=$1 keep_gid=$2
	fi
	staged=
	tmp=$(umask 077 && mktemp ./.zap.XXXXXX)
	trap 'zap_unstage' EXIT
	trap 'exit 1' HUP INT TERM
	# Opened for reading only: a link swapped in at the name is opened,
	# never created through, and refused below.
	exec 3<"$tmp"
	st=$(stat -L -c '%f %u %h %s %d:%i' /proc/self/fd/3)
	set -- $st
	if [ $((0x$1 & 0170000)) -ne $((0100000)) ] || [ "$2" != "$me" ] || [ "$3" != 1 ] || [ "$4" != 0 ] ||
		[ "$(stat -c '%d:%i' -- "$tmp")" != "$5" ]; then
		zap_fail 94 "the staged file ${dir:-}/${tmp#./} changed under it"
	fi
	staged=$5
	chmod 600 /proc/self/fd/3
	if ! base64 -d >/proc/self/fd/3; then
		zap_fail 93 "the content that arrived is not the content sent"
	fi
	got=$(wc -c </proc/self/fd/3)
	if [ "$got" -ne "$length" ]; then
		zap_fail 93 "$got bytes of $length arrived"
	fi
	got=$(sha512sum </proc/self/fd/3)
	if [ "${got%% *}" != "$want" ]; then
		zap_fail 93 "the content that arrived is not the content sent"
	fi
	zap_chown /proc/self/fd/3 "${owner:-$keep_uid}" "${group:-$keep_gid}"
	chmod -- "${mode:-$keep_mode}" /proc/self/fd/3
	if [ -d "./$name" ] && [ ! -L "./$name" ]; then
		zap_fail 94 "$path is a directory"
	fi
	if [ "$(stat -c '%d:%i' -- "$tmp")" != "$staged" ]; then
		zap_fail 94 "the staged file ${dir:-}/${tmp#./} changed under it"
	fi
	if ! mv -f -T -- "$tmp" "./$name" 2>/dev/null; then
		# BusyBox's mv -T won't rename over a link to a directory.
		if [ -d "./$name" ] && [ ! -L "./$name" ]; then
			zap_fail 94 "$path is a directory"
		fi
		mv -f -T -- "$tmp" "./$name"
	fi
	staged=
	trap - EXIT
}
zap_put "$@" <<'__zap_content_end__'
