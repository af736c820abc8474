# zap put PATH MODE OWNER GROUP SHA512 LENGTH
# Installs a file whole. The content follows this script on stdin, as the
# body of the here-document the last line opens: base64 lines, then the line
# __zap_content_end__ (ops.PutInput writes the stream). The shell reads that
# body itself, so no byte is lost to its read-ahead and any byte travels.
#
# The content is staged beside PATH under a new name (.zap.XXXXXX, mode 600),
# held open, checked against LENGTH and SHA512 (exit 93 when it isn't what was
# sent), given OWNER, GROUP and MODE through the open file, and renamed into
# place. Before a byte is written the staged file must be a regular file of
# the writer's, empty, with one name, at its name (exit 94). Each of MODE,
# OWNER and GROUP may be empty: then it is kept from the regular file PATH
# holds (the mode without set-id or sticky bits), or for a new file it is
# 0666 less the umask and the directory's owner and group. A symbolic link,
# a file with a second name, or anything below a directory with its sticky
# bit set or that every account may write (the directories of PATH as
# written, links read as what they lead to, and walking up by .. from where
# it leads) keeps nothing: the new file is the writer's. A mode is never
# kept from a file with an access list (getfacl, else ls's +): that is
# refused (exit 93) until MODE is given. A link at PATH is replaced, never
# followed; a directory there fails (exit 94). Missing parents are made as
# mkdir -p makes them. On any failure the staged file is removed and PATH is
# left as it was.
set -eu
# zap_shared DIR: true when a directory DIR leads through is sticky or
# writable by every account.
zap_shared() {
	at= rest=${1#/}
	while :; do
		[ $((0$(stat -L -c '%a' -- "${at:-/}") & 01002)) -eq 0 ] || return 0
		[ -n "$rest" ] || break
		case $rest in
		*/*) part=${rest%%/*} rest=${rest#*/} ;;
		*) part=$rest rest= ;;
		esac
		[ -z "$part" ] || at=$at/$part
	done
	(
		cd -P -- "$1" || exit 0
		while :; do
			[ $((0$(stat -c '%a' .) & 01002)) -eq 0 ] || exit 0
			[ "$(pwd -P)" != / ] || exit 1
			cd ..
		done
	)
}
# zap_acl FILE: true when FILE has an extended access list.
zap_acl() {
	if command -v getfacl >/dev/null 2>&1; then
		[ -n "$(getfacl -c -s -p -- "$1")" ]
	else
		case $(ls -ld -- "$1" 2>/dev/null) in
		??????????+*) return 0 ;;
		esac
		return 1
	fi
}
zap_put() {
	path=$1 mode=$2 owner=$3 group=$4 want=$5 length=$6
	case $path in
	/*) ;;
	*) echo "zap put: $path is not an absolute path" >&2; exit 2 ;;
	esac
	dir=${path%/*}
	[ -n "$dir" ] || dir=/
	mkdir -p -- "$dir"
	new=$(printf '%o' $((0666 & ~0$(umask))))
	keep_mode=$new keep_uid= keep_gid=
	if [ -L "$path" ]; then
		:
	elif [ -d "$path" ]; then
		echo "zap put: $path is a directory" >&2
		exit 94
	elif zap_shared "$dir"; then
		:
	elif [ -f "$path" ]; then
		set -- $(stat -c '%a %u %g %h' -- "$path")
		if [ "$4" = 1 ]; then
			keep_mode=$(printf '%o' $((0$1 & 0777))) keep_uid=$2 keep_gid=$3
			if [ -z "$mode" ] && zap_acl "$path"; then
				echo "zap put: $path has an access list, so its mode bits aren't its mode and can't be kept: declare mode" >&2
				exit 93
			fi
		fi
	elif [ ! -e "$path" ]; then
		set -- $(stat -L -c '%u %g' -- "$dir")
		keep_uid=$1 keep_gid=$2
	fi
	tmp=$(umask 077 && mktemp "$dir/.zap.XXXXXX")
	trap 'rm -f -- "$tmp"' EXIT
	trap 'exit 1' HUP INT TERM
	exec 3<>"$tmp"
	staged=$(stat -L -c '%d:%i' /proc/self/fd/3)
	if [ -L "$tmp" ] || [ ! -f "$tmp" ] || [ "$(stat -c '%d:%i %h %s %u' -- "$tmp")" != "$staged 1 0 $(id -u)" ]; then
		echo "zap put: the staged file $tmp changed under it" >&2
		exit 94
	fi
	chmod 600 /proc/self/fd/3
	if ! base64 -d >&3; then
		echo "zap put: the content that arrived is not the content sent" >&2
		exit 93
	fi
	got=$(wc -c < /proc/self/fd/3)
	if [ "$got" -ne "$length" ]; then
		echo "zap put: $got bytes of $length arrived" >&2
		exit 93
	fi
	got=$(sha512sum < /proc/self/fd/3)
	if [ "${got%% *}" != "$want" ]; then
		echo "zap put: the content that arrived is not the content sent" >&2
		exit 93
	fi
	u=${owner:-$keep_uid} g=${group:-$keep_gid}
	if [ -n "$u$g" ]; then chown -- "$u${g:+:$g}" /proc/self/fd/3; fi
	chmod -- "${mode:-$keep_mode}" /proc/self/fd/3
	if [ -d "$path" ] && [ ! -L "$path" ]; then
		echo "zap put: $path is a directory" >&2
		exit 94
	fi
	if [ "$(stat -c '%d:%i' -- "$tmp")" != "$staged" ]; then
		echo "zap put: the staged file $tmp changed under it" >&2
		exit 94
	fi
	mv -f -T -- "$tmp" "$path"
	trap - EXIT
}
zap_put "$@" <<'__zap_content_end__'
