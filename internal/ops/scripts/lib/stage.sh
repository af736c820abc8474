# The staging the scripts that write a file whole share (put, link,
# ledger-mark, swap-fstab, user-keys, user-sudo, firewall-nft-apply): the
# new file a write stages in the directory of its path and renames onto it,
# and the removal of what killed writers left there. ops.Script puts this
# text where a script says `#@include stage`; its text is what plan_hash
# covers. It uses the script's zap_fail, and me (the writer's uid: the
# walk's, else read here) and dir (the directory as messages name it: the
# current one when unset) when the script sets them. Its own variables
# start with zap_, but for tmp, staged and sgid.
#
# A staged name tells how to see whether its writer is alive. Where flock
# is (util-linux's, or BusyBox's applet) and the directory is the writer's,
# it is .zap.lk.XXXXXX and the writer holds an flock on it, through fd 3,
# from just after it is made until the script ends: a killed writer's lock
# went with it. Elsewhere (no flock, or a directory of another account's,
# as root's write in a home is) it is .zap.pPID.UID.NS.BOOT.XXXXXX, locked
# by nothing: PID is the writing shell's $$, UID its uid, NS the inode of
# its PID namespace and BOOT the first 8 hex digits of the kernel's boot_id
# (each 0 when it can't be read); the writer is alive while /proc/PID is.
#
# zap_clean removes from the current directory, before a write stages (a
# put's: once it has staged, its own file tmp left alone), what killed
# writers left there, and only that, and fails nothing. Only where
# neither the directory's group nor others may write it, so no account but
# its owner and root can make, rename or remove a name there while it is
# read; and there:
#  - each .zap.lk.XXXXXX, in a directory of the writer's and with flock,
#    that is a regular file with one name and that the writer can open and
#    lock without waiting: a live writer holds the lock. It is removed
#    while locked.
#  - each .zap.pPID.UID.NS.BOOT.XXXXXX, in a directory of the writer's, or
#    in any when the writer is root, whose UID is the writer's uid and NS and
#    BOOT its own, that is a regular file with one name, when there is no
#    /proc/PID. That is trusted only where /proc is the writer's PID
#    namespace's (the shell is there at $$, in that namespace alone), and
#    only for the writer's own uid, whose processes /proc never hides from
#    it (hidepid). A PID taken again only keeps a file; a writer in another
#    PID namespace, on another machine sharing the directory (a network
#    filesystem) or from before a reboot never matches, and its file stays.
#    Nothing is opened, so in another account's directory what that account
#    may put at a name is only ever unlinked from its own directory, which it
#    could do itself.
# Each is removed with its .ln link (a link's), when one is there.
#
# So when root's write is killed in a directory of another account's, the
# file it staged there (.zap.p..., root's, mode 600 until its owner is set)
# is left by that account's writes, which neither open it nor take root's
# UID for theirs, and removed by the next write as root to that directory.
# A .zap.XXXXXX, and the names the scripts staged under before they shared
# this, hold no proof and stay.
#
# Once per directory per run, not once per write: a put or link handed the
# list of directories this run (and lane: root's or the login user's) has
# cleaned already (zap_done) skips zap_clean where the directory it is in,
# by the DEV:INO the walk read of it, is on the list; one whose clean ran
# prints the line "zap-cleaned DEV:INO" on stdout, and the driver adds it
# to the list for the writes after it (internal/sshhost's Pipeline). So N
# writes into one directory read N names there, not N squared. That is
# safe: a live writer holds its lock (or its shell is alive), so only a
# killed writer leaves something; one of an earlier run's is there before
# this run's first write in the directory, which removes it; one of this
# run's appears only when a step of this run was killed, which stops the
# run, and the next run cleans it. The list can only make a write skip its
# clean, never remove more: a name on it is compared, never acted on.
tmp= staged= sgid= zap_name= zap_boot= zap_done= zap_report= zap_di=
# zap_cleaned LIST: the directories (DEV:INO, one space between) this run
# cleaned already, handed on stdin (ops.Input), never on argv. Any list
# over 64 entries' length, or with anything but digits, colons and spaces,
# is taken for none: then the write cleans as it always did. The write
# reports its clean (zap_report) whenever a list, even empty, was handed.
zap_cleaned() {
	zap_report=1 zap_done=
	case $1 in *[!0-9:\ ]*) return 0 ;; esac
	[ "${#1}" -le 2688 ] || return 0
	zap_done=" $1 "
}
# zap_me: sets me, the writer's uid (/proc/self's owner), unless it is set.
zap_me() {
	[ -n "${me:-}" ] || me=$(stat -L -c %u /proc/self)
}
# zap_ids: sets zap_ns, the inode of this shell's PID namespace, and
# zap_boot, the first 8 hex digits of the boot_id; each 0 when unread.
# lib/walk.sh's zap_below may have read zap_ns (and zap_pns, the namespace
# /proc/$$ names) already, in the stat it runs anyway.
zap_ids() {
	case ${zap_ns:-} in
	'' | *[!0-9]*)
		zap_ns=$(stat -L -c %i /proc/self/ns/pid 2>/dev/null) || zap_ns=
		zap_pns=
		;;
	esac
	case $zap_ns in '' | *[!0-9]*) zap_ns=0 ;; esac
	zap_boot=
	{ read -r zap_boot </proc/sys/kernel/random/boot_id; } 2>/dev/null || :
	zap_boot=${zap_boot%%-*}
	case $zap_boot in
	[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) ;;
	*) zap_boot=0 ;;
	esac
}
# zap_lock: takes the flock on fd 3, waiting out (about 5 s at most, never
# blocked) a cleaner that holds it a moment: an account that a default
# access list let open the file before its mode was set could hold it.
zap_lock() {
	zap_i=0
	until flock -n -x 3 2>/dev/null; do
		zap_i=$((zap_i + 1))
		[ "$zap_i" -lt 50 ] || return 1
		sleep 0.1 2>/dev/null || sleep 1
	done
}
# zap_stage: makes a new file in the current directory (mktemp, mode 600
# whatever the umask) and holds it open on fd 3, read only (no open here
# creates a file). It must be a regular file of the writer's, empty, with
# one name, and still the file at its name (exit 94). A .zap.lk. file is
# then locked and checked to be at its name again: a name gone meanwhile
# was a cleaner's, which took the file, not yet locked, for a killed
# writer's, and another is staged. Sets tmp, staged (its DEV:INO) and sgid
# (its group); the caller traps EXIT with zap_unstage first.
# When the walk left its read to this (zap_late, lib/walk.sh's zap_into),
# a directory the shell's euid owns (test -O) is taken for the writer's to
# pick the name, and the walk's one stat reads the staged file too
# (zap_below fd): one process fewer. Where that stat finds the directory
# isn't the writer's (/proc/self another uid's than the euid's), the file
# is removed and another staged under .zap.p.
zap_stage() {
	zap_late_read=
	if [ -n "${zap_late:-}" ] && [ -z "${here:-}" ] && [ -O . ] && command -v flock >/dev/null 2>&1; then
		zap_name=lk. zap_late_read=1
	else
		if [ -n "${zap_late:-}" ] && [ -z "${here:-}" ]; then zap_below; fi
		zap_me
		zap_here || zap_u=
		if [ "$zap_u" = "$me" ] && command -v flock >/dev/null 2>&1; then
			zap_name=lk.
		else
			zap_ids
			zap_name=p$$.$me.$zap_ns.$zap_boot.
		fi
	fi
	zap_n=0
	while :; do
		tmp=$(umask 077 && mktemp "./.zap.${zap_name}XXXXXX") || zap_fail 1 "can't stage a file in ${dir-$PWD}"
		if ! command exec 3<"$tmp"; then
			! zap_gone || continue
			zap_fail 94 "the staged file ${dir-$PWD}/${tmp#./} changed under it"
		fi
		if [ -n "$zap_late_read" ] && [ -z "${here:-}" ]; then
			zap_below fd
			zap_st=$zap_fd
			set -- $here
			if [ "$2" != "$me" ]; then
				if zap_at_name; then rm -f -- "$tmp"; fi
				exec 3<&-
				zap_ids
				zap_name=p$$.$me.$zap_ns.$zap_boot.
				continue
			fi
		else
			zap_st=$(stat -L -c '%f %u %g %h %s %d:%i' /proc/self/fd/3)
		fi
		set -- $zap_st
		if ! zap_at_name && zap_gone; then continue; fi
		if [ $((0x$1 & 0170000)) -ne $((0100000)) ] || [ "$2" != "$me" ] || [ "$4" != 1 ] || [ "$5" != 0 ] ||
			! zap_at_name; then
			zap_fail 94 "the staged file ${dir-$PWD}/${tmp#./} changed under it"
		fi
		staged=$6 sgid=$3
		[ "$zap_name" = lk. ] || return 0
		zap_lock || zap_fail 94 "the staged file ${dir-$PWD}/${tmp#./} is locked by another process"
		! zap_at_name || return 0
		if [ -e "$tmp" ] || [ -L "$tmp" ] || [ "$zap_n" -ge 3 ]; then
			zap_fail 94 "the staged file ${dir-$PWD}/${tmp#./} changed under it"
		fi
		staged= zap_n=$((zap_n + 1))
		exec 3<&-
	done
}
# zap_gone: true, counting a try, when the staged lk. name is gone before
# the file was locked: a cleaner took the file, not yet locked, for a killed
# writer's, so another is staged (three tries, as after the lock).
zap_gone() {
	if [ "$zap_name" != lk. ] || [ -e "$tmp" ] || [ -L "$tmp" ] || [ "$zap_n" -ge 3 ]; then
		return 1
	fi
	zap_n=$((zap_n + 1))
	exec 3<&-
}
# zap_at_name: true when the name tmp is, not through a link, the file open
# on fd 3 (test's -ef: the same device and inode, read by the shell itself).
# A link swapped in after the -L test passes here, and is caught by the
# stat zap_commit (or the put) reads without following before the rename.
zap_at_name() {
	[ ! -L "$tmp" ] && [ "$tmp" -ef /proc/self/fd/3 ]
}
# zap_here: sets zap_u and zap_m, the current directory's owner and mode:
# lib/walk.sh's here and here_mode when the walk read them, else a stat.
zap_here() {
	if [ -n "${here:-}" ] && [ -n "${here_mode:-}" ]; then
		set -- $here
		zap_u=$2 zap_m=$here_mode zap_di=$1
		return 0
	fi
	zap_st=$(stat -c '%u %a %d:%i' .) || return 1
	set -- $zap_st
	zap_u=$1 zap_m=$2 zap_di=$3
}
# zap_commit NAME: renames the staged file onto NAME in the current
# directory (mv -T: a link at NAME is replaced, never followed), once the
# staged name is checked to still be that file (exit 94). A failed mv
# returns its status.
zap_commit() {
	if [ "$(stat -c '%d:%i' -- "$tmp" 2>/dev/null)" != "$staged" ]; then
		zap_fail 94 "the staged file ${dir-$PWD}/${tmp#./} changed under it"
	fi
	mv -f -T -- "$tmp" "./$1" || return
	staged=
}
# zap_unstage: removes the staged file, if the name is still it.
zap_unstage() {
	if [ -n "$staged" ] && [ "$(stat -c '%d:%i' -- "$tmp" 2>/dev/null)" = "$staged" ]; then
		rm -f -- "$tmp"
	fi
	return 0
}
# zap_clean: removes from the current directory what killed writers left,
# and only that (see the top), unless this run cleaned it already
# (zap_done); a clean that ran is reported (zap_report).
zap_clean() {
	zap_me
	zap_here || return 0
	[ $((0$zap_m & 022)) -eq 0 ] || return 0
	zap_own=0
	[ "$zap_u" != "$me" ] || zap_own=1
	[ "$zap_own" = 1 ] || [ "$me" = 0 ] || return 0
	case $zap_done in *" $zap_di "*) return 0 ;; esac
	zap_sweep
	[ -z "$zap_report" ] || echo "zap-cleaned $zap_di"
}
# zap_sweep: zap_clean's removals, in a directory that qualified.
zap_sweep() {
	if [ "$zap_own" = 1 ] && command -v flock >/dev/null 2>&1; then
		for zap_f in ./.zap.lk.??????; do
			case ${zap_f#./.zap.lk.} in *[!A-Za-z0-9]*) continue ;; esac
			[ "$zap_f" != "$tmp" ] || continue
			if [ -L "$zap_f" ] || [ ! -f "$zap_f" ]; then continue; fi
			zap_st=$(stat -c '%h %d:%i' -- "$zap_f" 2>/dev/null) || continue
			set -- $zap_st
			[ "$1" = 1 ] || continue
			[ -r "$zap_f" ] || continue
			command exec 5<"$zap_f" || continue
			if [ "$(stat -L -c '%d:%i' /proc/self/fd/5)" = "$2" ] && flock -n -x 5 2>/dev/null; then
				if [ -L "$zap_f.ln" ]; then rm -f -- "$zap_f.ln"; fi
				rm -f -- "$zap_f"
			fi
			exec 5<&-
		done
	fi
	zap_ids
	if [ "$zap_ns" = 0 ] || [ "$zap_boot" = 0 ] || [ ! -r "/proc/$$/status" ]; then return 0; fi
	# /proc is this PID namespace's: the shell is there at $$, in it alone.
	zap_st=${zap_pns:-}
	[ -n "$zap_st" ] || zap_st=$(stat -L -c %i "/proc/$$/ns/pid" 2>/dev/null) || return 0
	[ "$zap_st" = "$zap_ns" ] || return 0
	zap_st=
	while read -r zap_k zap_f zap_x; do
		if [ "$zap_k" = NSpid: ]; then
			zap_st=$zap_f${zap_x:+ and more}
			break
		fi
	done <"/proc/$$/status"
	[ "$zap_st" = "$$" ] || return 0
	for zap_f in ./.zap.p*; do
		[ "$zap_f" != "$tmp" ] || continue
		zap_r=${zap_f#./.zap.p}
		case $zap_r in *[!0-9A-Za-z.]*) continue ;; esac
		zap_p=${zap_r%%.*} zap_r=${zap_r#*.}
		zap_u=${zap_r%%.*} zap_r=${zap_r#*.}
		zap_s=${zap_r%%.*} zap_r=${zap_r#*.}
		zap_b=${zap_r%%.*} zap_r=${zap_r#*.}
		case $zap_p in '' | 0* | *[!0-9]*) continue ;; esac
		case $zap_r in *.*) continue ;; ??????) ;; *) continue ;; esac
		if [ "$zap_u" != "$me" ] || [ "$zap_s" != "$zap_ns" ] || [ "$zap_b" != "$zap_boot" ]; then continue; fi
		if [ -L "$zap_f" ] || [ ! -f "$zap_f" ]; then continue; fi
		zap_st=$(stat -c %h -- "$zap_f" 2>/dev/null) || continue
		if [ "$zap_st" != 1 ] || [ -e "/proc/$zap_p" ]; then continue; fi
		if [ -L "$zap_f.ln" ]; then rm -f -- "$zap_f.ln"; fi
		rm -f -- "$zap_f"
	done
	return 0
}
