# zap put PATH MODE OWNER GROUP SHA512 LENGTH [snapshot|remove]
# PATH, MODE, OWNER and GROUP are on the shell's argv; SHA512, LENGTH and
# what follows arrive on stdin, set ahead of this script (ops.Input), so no
# account on the host reads the content's digest in ps.
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
# The content is staged beside PATH in a new file (mktemp's, mode 600: the
# umask and a default access list only take bits away from it) held open (read
# only: no open here creates a file): .zap.lk.XXXXXX, locked (flock), in a
# directory of the writer's where there is flock, else
# .zap.pPID.UID.NS.BOOT.XXXXXX, naming the writing shell (lib/stage.sh).
# Before a byte is written it must be a regular file of the writer's,
# empty, with one name, and still the file at the staged name (exit 94).
# Before it stages, the put removes what killed writers left beside PATH:
# each .zap.lk.XXXXXX it can lock without waiting, and each of its uid's
# .zap.p... whose shell is gone, only where no account but the directory's
# owner can write it (lib/stage.sh, zap_clean). The bytes are written
# through /proc/self/fd, checked against SHA512 and LENGTH (exit 93 when
# they aren't what was sent), given OWNER, GROUP and MODE through the open
# file, and, the staged name checked to still be that file, renamed into
# place: a link at PATH is replaced, never followed; a directory there
# fails (exit 94). On any failure the staged file, if the name is still it,
# is removed and PATH is left as it was.
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
# PATH holds (not a directory) is removed and nothing is installed: a
# validated put's new file, when the check failed and there was none before.
set -eu
zap=put
#@include walk
#@include stage
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
	command exec 4<"./$name" || zap_fail 94 "$path changed while it was read: it is not the regular file at its name"
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
# zap_content: writes the content on stdout, decoded from the here-document
# (ops.StreamPut's tail copies it raw instead).
zap_content() { base64 -d; }
# zap_keep_mode N: sets keep_mode to the number N in three octal digits,
# with no process (an arithmetic expansion, not printf in a subshell).
zap_keep_mode() {
	keep_mode=$((($1 >> 6) & 7))$((($1 >> 3) & 7))$(($1 & 7))
}
zap_put() {
	path=$1 mode=$2 owner=$3 group=$4 want=$5 length=$6 what=${7-}
	zap_name "$path" "a file"
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
	# What the new file keeps when MODE, OWNER or GROUP is unset (with all
	# three set, nothing is read for it).
	keep_mode= keep_uid= keep_gid=
	if [ -n "$mode" ] && [ -n "$owner" ] && [ -n "$group" ]; then
		:
	elif [ -L "./$name" ]; then
		:
	elif [ -e "./$name" ]; then
		st=$(stat -c '%f %a %u %g %h' -- "./$name")
		set -- $st
		if [ $((0x$1 & 0170000)) -eq $((0100000)) ] && [ "$5" = 1 ] && [ "$below" = 0 ]; then
			zap_keep_mode $((0$2 & 0777))
			keep_uid=$3 keep_gid=$4
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
		set -- $here
		keep_uid=$2 keep_gid=$3
	fi
	if [ -z "$mode$keep_mode" ]; then
		keep_mode=$(umask)
		zap_keep_mode $((0666 & ~0$keep_mode))
	fi
	zap_clean
	trap 'zap_unstage' EXIT
	trap 'exit 1' HUP INT TERM
	# mktemp made it mode 600 (the umask and a default access list only
	# ever take bits away from what a file is created with).
	zap_stage
	if ! zap_content >/proc/self/fd/3; then
		zap_fail 93 "the content that arrived is not the content sent"
	fi
	got=$(sha512sum </proc/self/fd/3)
	if [ "${got%% *}" != "$want" ]; then
		zap_fail 93 "the content that arrived is not the content sent"
	fi
	zap_chown /proc/self/fd/3 "${owner:-$keep_uid}" "${group:-$keep_gid}" "$me" "$sgid"
	chmod -- "${mode:-$keep_mode}" /proc/self/fd/3
	if [ -d "./$name" ] && [ ! -L "./$name" ]; then
		zap_fail 94 "$path is a directory"
	fi
	st=$(stat -c '%d:%i %s' -- "$tmp" 2>/dev/null) || st=
	set -- $st
	if [ "${1-}" != "$staged" ]; then
		zap_fail 94 "the staged file ${dir:-}/${tmp#./} changed under it"
	fi
	if [ "$2" != "$length" ]; then
		zap_fail 93 "$2 bytes of $length arrived"
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
