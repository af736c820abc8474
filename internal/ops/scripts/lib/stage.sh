# The staging put and link share: the new file a write stages beside its
# path, and the removal of what a killed writer left there. ops.Script puts
# this text where a script says `#@include stage`, after the walk, whose
# me and zap_fail it uses; its text is what plan_hash covers.
#
# Where flock is (util-linux's, or BusyBox's applet) a writer stages
# .zap.lk.XXXXXX and holds an flock on it, through fd 3, until the script
# ends: from just after it is made until it is renamed into place, a live
# writer's staged file is locked. Elsewhere it stages .zap.XXXXXX, locked by
# nothing, which no write ever removes.
if command -v flock >/dev/null 2>&1; then zap_lk=lk.; else zap_lk=; fi
tmp= staged= sgid=
# zap_lock: takes the flock on fd 3, waiting out (about 5 s at most, never
# blocked) a cleaner that holds it a moment: an account that a default
# access list let open the file before its mode was set could hold it.
zap_lock() {
	i=0
	until flock -n -x 3 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -lt 50 ] || return 1
		sleep 0.1 2>/dev/null || sleep 1
	done
}
# zap_stage: makes a new file in the current directory (mktemp, mode 600
# whatever the umask) and holds it open on fd 3, read only (no open here
# creates a file). It must be a regular file of the writer's, empty, with
# one name, and still the file at its name (exit 94). With flock it is then
# locked and checked to be at its name again: a name gone meanwhile was a
# cleaner's, which took the file, not yet locked, for a killed writer's, and
# another is staged. Sets tmp, staged (its DEV:INO) and sgid (its group);
# the caller traps EXIT with zap_unstage first.
zap_stage() {
	n=0
	while :; do
		tmp=$(umask 077 && mktemp "./.zap.${zap_lk}XXXXXX")
		command exec 3<"$tmp" || zap_fail 94 "the staged file ${dir:-}/${tmp#./} changed under it"
		st=$(stat -L -c '%f %u %g %h %s %d:%i' /proc/self/fd/3)
		set -- $st
		if [ $((0x$1 & 0170000)) -ne $((0100000)) ] || [ "$2" != "$me" ] || [ "$4" != 1 ] || [ "$5" != 0 ] ||
			[ "$(stat -c '%d:%i' -- "$tmp")" != "$6" ]; then
			zap_fail 94 "the staged file ${dir:-}/${tmp#./} changed under it"
		fi
		staged=$6 sgid=$3
		[ -n "$zap_lk" ] || return 0
		zap_lock || zap_fail 94 "the staged file ${dir:-}/${tmp#./} is locked by another process"
		st=$(stat -c '%d:%i' -- "$tmp" 2>/dev/null) || st=
		[ "$st" != "$staged" ] || return 0
		if [ -n "$st" ] || [ "$n" -ge 3 ]; then
			zap_fail 94 "the staged file ${dir:-}/${tmp#./} changed under it"
		fi
		staged= n=$((n + 1))
		exec 3<&-
	done
}
# zap_unstage: removes the staged file, if the name is still it.
zap_unstage() {
	if [ -n "$staged" ] && [ "$(stat -c '%d:%i' -- "$tmp" 2>/dev/null)" = "$staged" ]; then
		rm -f -- "$tmp"
	fi
	return 0
}
# zap_clean: removes from the current directory what killed writers left,
# and only that. Only in a directory of the writer's that neither its group
# nor others may write, so no other account (root aside) can make, rename or
# remove a name there while it is read; and only with flock. There each
# .zap.lk.XXXXXX that is a regular file with one name, and that the writer
# can open and lock without waiting, is a killed writer's: a live one holds
# the lock. It is removed with its .zap.lk.XXXXXX.ln link (a link's), if
# one is there, while locked.
zap_clean() {
	[ -n "$zap_lk" ] || return 0
	st=$(stat -c '%u %a' .) || return 0
	set -- $st
	if [ "$1" != "$me" ] || [ $((0$2 & 022)) -ne 0 ]; then return 0; fi
	for f in ./.zap.lk.??????; do
		case ${f#./.zap.lk.} in *[!A-Za-z0-9]*) continue ;; esac
		if [ -L "$f" ] || [ ! -f "$f" ]; then continue; fi
		st=$(stat -c '%h %d:%i' -- "$f" 2>/dev/null) || continue
		set -- $st
		[ "$1" = 1 ] || continue
		[ -r "$f" ] || continue
		command exec 5<"$f" || continue
		if [ "$(stat -L -c '%d:%i' /proc/self/fd/5)" = "$2" ] && flock -n -x 5 2>/dev/null; then
			if [ -L "$f.ln" ]; then rm -f -- "$f.ln"; fi
			rm -f -- "$f"
		fi
		exec 5<&-
	done
	return 0
}
