# The put's own functions, which put.sh and put-stream.sh share: the two
# differ only in how the content reaches zap_content (see put.sh's top for
# what a put does). ops.Script puts this text where a script says
# `#@include put`, after walk and stage; its text is what plan_hash covers.
# zap_snapshot: prints the file at the name (see put.sh's top).
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
# zap_keep_mode N: sets keep_mode to the number N in three octal digits,
# with no process (an arithmetic expansion, not printf in a subshell).
zap_keep_mode() {
	keep_mode=$((($1 >> 6) & 7))$((($1 >> 3) & 7))$(($1 & 7))
}
zap_put() {
	path=$1 mode=$2 owner=$3 group=$4 want=$5 length=$6 what=${7-}
	[ $# -lt 8 ] || zap_cleaned "$8"
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
	# The walk's read of the directories waits for the staged file's stat
	# (lib/stage.sh's zap_stage), which reads both.
	zap_late=1
	zap_into "${dir:-/}" make
	if [ -d "./$name" ] && [ ! -L "./$name" ]; then
		zap_fail 94 "$path is a directory"
	fi
	if [ "$what" = snapshot ]; then zap_snapshot; fi
	trap 'zap_unstage' EXIT
	trap 'exit 1' HUP INT TERM
	# mktemp made it mode 600 (the umask and a default access list only
	# ever take bits away from what a file is created with).
	zap_stage
	# What killed writers left beside it, this put's own file aside.
	zap_clean
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
