# zap user-keys NAME keys KEY...
# zap user-keys NAME copy_from SOURCE
# Writes the account NAME's authorized_keys: the KEYs, one a line, or the
# account SOURCE's authorized_keys, read as SOURCE through its /etc/passwd
# home. Then sets NAME's /etc/shadow password field to * (no password, not
# locked) when it is anything else.
#
# /home/NAME is entered from /home (no link followed at NAME) and must be
# the directory at its name, owned by NAME or root. Its .ssh is made there
# (mode 700) when missing, entered, and must be, once entered, the directory
# at /home/NAME/.ssh; it is given to NAME and its login group and mode 700,
# set on the directory entered, never through a name. A symbolic link at
# .ssh is refused, not followed (exit 94), and nothing is written.
#
# authorized_keys is written AS NAME (sudo -u, else setpriv: a shell that
# reads its script, and the content in base64, on stdin): staged in .ssh
# under a new name (.zap.lk.XXXXXX or .zap.pPID.UID.NS.BOOT.XXXXXX,
# lib/stage.sh), mode 600, and renamed over authorized_keys (mv -T), so
# nothing NAME plants in its own .ssh redirects the write anywhere NAME
# couldn't already write. Before it stages, that write removes what killed
# writers left in .ssh; the staged file is removed on any failure, and one
# that changes under it exits 94. Other files in .ssh are left as they are.
set -eu
unset CDPATH
zap=user-keys
#@include fail
#@include as
[ $# -ge 3 ] || zap_fail 2 "takes NAME keys KEY... or NAME copy_from SOURCE"
n=$1 how=$2
shift 2
#@include account
home=/home/$n
uid=$(id -u "$n" 2>/dev/null) || zap_fail 93 "there is no account $n"

case $how in
keys)
	content=$(printf '%s\n' "$@")
	;;
copy_from)
	[ $# -eq 1 ] || zap_fail 2 "copy_from takes one SOURCE"
	src=$1
	if command -v getent >/dev/null 2>&1; then
		pw=$(getent passwd "$src" | head -n 1) || pw=
	else
		pw=$(awk -F: -v n="$src" '$1 == n { print; exit }' /etc/passwd) || pw=
	fi
	[ -n "$pw" ] || zap_fail 93 "there is no account $src to copy authorized_keys from"
	srchome=$(printf '%s\n' "$pw" | cut -d: -f6)
	content=$(cd / && zap_as "$src" cat -- "$srchome/.ssh/authorized_keys") ||
		zap_fail 93 "$src can't read its $srchome/.ssh/authorized_keys"
	;;
*)
	zap_fail 2 "$how is not keys or copy_from"
	;;
esac

cd -P /home 2>/dev/null || zap_fail 94 "/home is missing"
if [ -L "./$n" ]; then
	zap_fail 94 "$home is a symbolic link: zap acts through no link it didn't make"
elif [ ! -d "./$n" ]; then
	zap_fail 94 "$home is not a directory"
fi
#@include enter-home

if [ -L .ssh ]; then
	zap_fail 94 "$home/.ssh is a symbolic link: zap writes no key through a link it didn't make; remove it"
elif [ ! -e .ssh ]; then
	mkdir -m 700 .ssh 2>/dev/null || zap_fail 94 "$home/.ssh appeared while it was made"
elif [ ! -d .ssh ]; then
	zap_fail 94 "$home/.ssh is in the way: it is not a directory"
fi
[ ! -L .ssh ] || zap_fail 94 "$home/.ssh is a symbolic link: zap writes no key through a link it didn't make; remove it"
up=$(stat -c '%d:%i' .)
cd -P -- ./.ssh
st=$(stat -c '%d:%i' . .. ../.ssh 2>/dev/null) || st=
set -- $st
if [ $# != 3 ] || [ "$2" != "$up" ] || [ "$3" != "$1" ]; then
	zap_fail 94 "$home/.ssh changed while it was entered: it is not the directory at its name"
fi
chown -- "$n:" .
chmod 0700 .

# As the account, in its .ssh: stage, mode 600, rename over authorized_keys.
# The account's shell reads this script on stdin, and the content, base64,
# as the body of the here-document its last line opens (as a put's is): on
# an argv, sudo would log the script whole.
zap_stage_script() {
	cat <<'__zap_stage__'
set -eu
unset CDPATH
umask 077
zap=user-keys
#@include fail
#@include stage
zap_keys() {
	dir=$1
	cd -P -- "$dir"
	if [ -d authorized_keys ] && [ ! -L authorized_keys ]; then
		zap_fail 94 "$dir/authorized_keys is in the way: it is a directory"
	fi
	zap_clean
	trap 'zap_unstage' EXIT
	trap 'exit 1' HUP INT TERM
	zap_stage
	base64 -d >/proc/self/fd/3
	chmod 600 /proc/self/fd/3
	zap_commit authorized_keys
	trap - EXIT
}
zap_keys "$@" <<'__zap_keys_end__'
__zap_stage__
}
{
	zap_stage_script
	printf '%s\n' "$content" | base64
	echo __zap_keys_end__
} | zap_as "$n" sh -s -- "$home/.ssh"

# The password field: * (no password, not locked).
f=$(awk -F: -v n="$n" '$1 == n { print $2; exit }' /etc/shadow)
if [ "$f" != '*' ]; then
	if command -v usermod >/dev/null 2>&1; then
		usermod -p '*' "$n"
	else
		printf '%s:*\n' "$n" | chpasswd -e
	fi
fi
