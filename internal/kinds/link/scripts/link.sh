# zap link PATH TARGET [CLEANED]
# Makes PATH a symbolic link to TARGET. PATH is on the shell's argv; TARGET
# arrives on stdin, set ahead of this script (ops.Input).
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
# The link is made under a new name beside PATH (ln -s -T, which never
# makes it inside what is at that name) and renamed into place, replacing a
# regular file or another link at PATH (where mv can't rename over a link to
# a directory, as BusyBox's can't, that link is removed first). A directory
# at PATH fails (exit 94). The name is that of a file staged beside PATH
# first, as a put's is (lib/stage.sh: .zap.lk.XXXXXX, locked, or
# .zap.pPID.UID.NS.BOOT.XXXXXX), followed by .ln; the file is removed once
# the link is in place. Before it stages, the write removes what killed
# writers left beside PATH, each staged file with its .ln: each
# .zap.lk.XXXXXX it can lock without waiting, and each of its uid's
# .zap.p... whose shell is gone, only where no account but the directory's
# owner can write it (lib/stage.sh, zap_clean).
#
# A third argument, on stdin too, is the list of directories this run
# cleaned already (DEV:INO ...): where PATH's directory is one of them the
# write doesn't read it again, and a clean that ran prints the line
# "zap-cleaned DEV:INO" on stdout (lib/stage.sh, zap_cleaned).
set -eu
zap=link
#@include walk
#@include stage
new=
# zap_unlink: removes the link made under the new name, if it is still
# there, and the staged file.
zap_unlink() {
	if [ -n "$new" ] && [ -L "$new" ]; then rm -f -- "$new"; fi
	zap_unstage
}
zap_link() {
	path=$1 target=$2
	[ $# -lt 3 ] || zap_cleaned "$3"
	zap_name "$path" "a link"
	zap_into "${dir:-/}" make
	if [ -d "./$name" ] && [ ! -L "./$name" ]; then
		zap_fail 94 "$path is a directory"
	fi
	zap_clean
	trap 'zap_unlink' EXIT
	trap 'exit 1' HUP INT TERM
	zap_stage
	lnk=$tmp.ln
	ln -s -T -- "$target" "$lnk"
	new=$lnk
	if ! mv -f -T -- "$new" "./$name" 2>/dev/null; then
		if [ -d "./$name" ] && [ ! -L "./$name" ]; then
			zap_fail 94 "$path is a directory"
		fi
		if [ -L "./$name" ]; then rm -f -- "./$name"; fi
		mv -f -T -- "$new" "./$name"
	fi
	new=
	zap_unstage
	staged=
	trap - EXIT
}
zap_link "$@"
