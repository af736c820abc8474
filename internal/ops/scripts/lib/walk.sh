# The walk put, dir and link share: the functions that split a path, enter
# its directories one name at a time, make what is missing and check what
# they made. ops.Script puts this text where an operation script says
# `#@include walk`, so each script still travels whole; its text is what
# plan_hash covers. The including script sets zap (its name) first.
unset CDPATH
me= gnu= here= here_mode= below=0 at=
zap_fail() {
	echo "zap $zap: $2" >&2
	exit "$1"
}
# zap_name PATH WHAT: sets name to PATH's last name and dir to the
# directory it names that in (empty for /). A PATH that isn't absolute, or
# whose last name is empty, . or .., exits 2: it doesn't name WHAT.
zap_name() {
	case $1 in
	/*) ;;
	*) zap_fail 2 "$1 is not an absolute path" ;;
	esac
	name=${1##*/} dir=${1%/*}
	case $name in
	'' | . | ..) zap_fail 2 "$1 doesn't name $2" ;;
	esac
}
# zap_shared MODE: true when an octal MODE has the sticky bit or the write
# bit for others.
zap_shared() { [ $((0$1 & 01002)) -ne 0 ]; }
# zap_chown FILE UID GID CUID CGID: gives FILE, owned CUID:CGID, the owner
# UID and the group GID, each when it is set and differs. Digits only are a
# numeric id, which GNU chown reads as a name first unless it starts with +.
zap_chown() {
	u=$2 g=$3
	[ "$u" != "$4" ] || u=
	[ "$g" != "$5" ] || g=
	# A name the local files give the id FILE already has is no change: no
	# chown runs for it (each process costs a put milliseconds).
	case $u in *[!0-9]*)
		if [ -n "$4" ] && zap_id passwd "$u" && [ "$zap_id" = "$4" ]; then u=; fi
		;;
	esac
	case $g in *[!0-9]*)
		if [ -n "$5" ] && zap_id group "$g" && [ "$zap_id" = "$5" ]; then g=; fi
		;;
	esac
	[ -n "$u$g" ] || return 0
	# Only a numeric id needs to know whose chown this is.
	v=
	case $u in '' | *[!0-9]*) ;; *) v=1 ;; esac
	case $g in '' | *[!0-9]*) ;; *) v=1 ;; esac
	if [ -n "$v" ] && [ -z "$gnu" ]; then
		v=$(chown --version 2>/dev/null) || v=
		case $v in
		*coreutils*) gnu=+ ;;
		*) gnu=- ;;
		esac
	fi
	p=
	[ "$gnu" = - ] || p=+
	case $u in *[!0-9]*) ;; ?*) u=$p$u ;; esac
	case $g in *[!0-9]*) ;; ?*) g=$p$g ;; esac
	chown -- "$u${g:+:$g}" "$1"
}
# zap_id DB NAME: sets zap_id to NAME's id in /etc/DB (passwd or group),
# read by the shell, and is true, only where that is the id the system's
# lookup gives NAME: nsswitch.conf, when there is one, names files (or
# compat) first for DB, and no line of NIS's +/- comes before NAME's, the
# first line with NAME. Else, or past the file's 256th line (the shell
# reads a byte at a time), false: chown looks the name up itself.
zap_id() {
	zap_id=
	if [ -e /etc/nsswitch.conf ]; then
		[ -r /etc/nsswitch.conf ] || return 1
		zap_ia=
		while IFS= read -r zap_il; do
			case $zap_il in
			"$1:"*)
				zap_il=${zap_il#"$1:"}
				zap_il=${zap_il#"${zap_il%%[! 	]*}"}
				zap_ia=${zap_il%%[ 	]*}
				break
				;;
			esac
		done </etc/nsswitch.conf
		case $zap_ia in files | compat) ;; *) return 1 ;; esac
	fi
	[ -r "/etc/$1" ] || return 1
	zap_ic=0
	while IFS=: read -r zap_il zap_ix zap_ia zap_ix; do
		case $zap_il in [+-]*) return 1 ;; esac
		zap_ic=$((zap_ic + 1))
		[ "$zap_ic" -le 256 ] || return 1
		if [ "$zap_il" = "$2" ]; then
			case $zap_ia in '' | *[!0-9]*) return 1 ;; esac
			zap_id=$zap_ia
			return 0
		fi
	done <"/etc/$1"
	return 1
}
# zap_below [fd]: reads, in one stat, every directory the path leads
# through so far: each the path as written names up to the current one
# ($at), read as what it leads to, and the current directory and each one
# above it by .. to /. below=1 when one is shared. here is the current
# directory's DEV:INO UID GID, here_mode its mode, and me the writer's uid
# (/proc/self's owner). The same stat reads the PID namespaces of stat
# itself and of this shell, zap_ns and zap_pns for lib/stage.sh, so a write
# spends no process on them; when either can't be read both are left unset,
# and stage.sh reads them itself. With fd it reads the file open on fd 3 as
# well, setting zap_fd to its TYPE UID GID LINKS SIZE DEV:INO (stat's %f %u
# %g %h %s %d:%i): stage.sh's checks of the file it staged. Each process a
# script starts costs a target milliseconds (make bench), so the walk's
# reads share one.
zap_below() {
	zap_fd=${1-}
	set -- /
	p= r=${at#/}
	while [ -n "$r" ]; do
		case $r in
		*/*) p=$p/${r%%/*} r=${r#*/} ;;
		*) p=$p/$r r= ;;
		esac
		set -- "$@" "$p"
	done
	set -- "$@" /proc/self .
	# cd -P, the only way the walk enters a directory, leaves PWD physical.
	k=$(($# - 1)) up=. r=$PWD
	while [ -n "${r#/}" ]; do
		r=${r%/*} up=$up/..
		set -- "$@" "$up"
	done
	n=$#
	[ -z "$zap_fd" ] || set -- "$@" /proc/self/fd/3
	m=$#
	zap_ns= zap_pns=
	# Seven words a name: the first four the walk's, the last three stage.sh's.
	if st=$(stat -L -c '%a %d:%i %u %g %f %h %s' -- "$@" /proc/self/ns/pid "/proc/$$/ns/pid" 2>/dev/null) &&
		zap_count $st && [ "$zap_c" -eq $(((m + 2) * 7)) ]; then
		set -- $st
		eval "zap_ns=\${$((m * 7 + 2))} zap_pns=\${$((m * 7 + 9))}"
		zap_ns=${zap_ns#*:} zap_pns=${zap_pns#*:}
	else
		# A namespace that can't be read (or anything else): the directories
		# alone, as strictly as ever; stage.sh reads the namespaces itself.
		st=$(stat -L -c '%a %d:%i %u %g %f %h %s' -- "$@")
		set -- $st
		[ $# -eq $((m * 7)) ] || zap_fail 1 "can't read the directories ${at:-/} leads through"
	fi
	i=1
	while [ "$i" -le "$n" ]; do
		if zap_shared "$1"; then below=1; fi
		[ "$i" != "$k" ] || me=$3
		[ "$i" != $((k + 1)) ] || here="$2 $3 $4" here_mode=$1
		i=$((i + 1))
		shift 7
	done
	[ -z "$zap_fd" ] || zap_fd="$5 $3 $4 $6 $7 $2"
}
# zap_count WORD...: sets zap_c to the number of its arguments.
zap_count() { zap_c=$#; }
# zap_empty: true when the current directory holds no name but . and ..
zap_empty() {
	for f in .[!.]* ..?* *; do
		if [ -e "$f" ] || [ -L "$f" ]; then return 1; fi
	done
	return 0
}
# zap_mkdir NAME: makes NAME in the current directory and enters it. It
# must be the empty directory of the writer's just made, at its name in
# the directory it was made in (exit 94), and is given that directory's
# owner and group unless below is set.
zap_mkdir() {
	set -- "$1" $here
	if err=$(mkdir -- "./$1" 2>&1); then
		cd -P -- "./$1"
		st=$(stat -c '%d:%i %u %g %a' . .. "../$1" 2>/dev/null) || st=
		set -- "$@" $st
		if [ $# -ne 16 ] || [ "$6" != "$me" ] || [ "$9" != "$2" ] || [ "${13}" != "$5" ] || ! zap_empty; then
			zap_fail 94 "$at changed while it was made: it is not the empty directory made there"
		fi
		here="$5 $6 $7" here_mode=$8
		if [ "$below" = 0 ]; then
			zap_chown . "$3" "$4" "$6" "$7"
			here="$5 $3 $4"
		fi
		if zap_shared "$8"; then below=1; fi
	elif [ -d "./$1" ]; then
		# Made by someone else meanwhile: used as found.
		cd -P -- "./$1"
		st=$(stat -c '%d:%i %u %g %a' .)
		set -- $st
		here="$1 $2 $3" here_mode=$4
		if zap_shared "$4"; then below=1; fi
	elif [ -e "./$1" ] || [ -L "./$1" ]; then
		zap_fail 94 "$at is in the way: it is not a directory"
	else
		zap_fail 1 "make the directory $at: ${err##*: }"
	fi
}
# zap_into DIR [make]: enters the absolute directory DIR one name at a time
# from / (cd -P: a link on the way is followed), and reads what it leads
# through (zap_below; when the script set zap_late and no directory was
# made, that read is left to lib/stage.sh's zap_stage). With make, a missing
# directory is made (zap_mkdir); without, it sets missing=1.
zap_into() {
	cd /
	at= rest=${1#/} seen=0 missing=0
	while [ -n "$rest" ]; do
		case $rest in
		*/*) part=${rest%%/*} rest=${rest#*/} ;;
		*) part=$rest rest= ;;
		esac
		case $part in '' | .) continue ;; esac
		if [ -d "./$part" ]; then
			cd -P -- "./$part"
			at=$at/$part
			continue
		fi
		if [ -e "./$part" ] || [ -L "./$part" ]; then
			zap_fail 94 "$at/$part is in the way: it is not a directory"
		fi
		if [ -z "${2-}" ]; then
			missing=1
			return 0
		fi
		if [ "$seen" = 0 ]; then
			seen=1
			zap_below
		fi
		at=$at/$part
		zap_mkdir "$part"
	done
	# With zap_late set the caller reads them (lib/stage.sh's zap_stage,
	# in the stat of the file it stages) unless a directory was made.
	if [ "$seen" = 0 ] && [ -z "${zap_late:-}" ]; then zap_below; fi
	return 0
}
