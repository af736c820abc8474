# zap swap-fstab PATH
# Lists the swap file PATH in /etc/fstab (`PATH none swap sw 0 0`, a
# backslash in PATH written \134), unless an entry of type swap for it is
# there already. Runs as root.
#
# The table is rewritten whole: a copy of it as it reads, plus the entry,
# made in a file staged beside it in /etc (mode 600 until it is done),
# given root:root and the table's mode, and renamed over /etc/fstab (mv
# -T); a symbolic link there is followed to read the table and replaced by
# the file. With no table, the new one holds the entry alone, mode 644. A
# table that can't be read, and one with a POSIX access list (whose mode
# can't be kept), fail the step (exit 93) with nothing written. Before it
# stages, the write removes what killed writers left in /etc; the staged
# file (.zap.lk.XXXXXX or .zap.pPID.UID.NS.BOOT.XXXXXX, lib/stage.sh) is
# removed on any failure, and one that changes under it exits 94.
set -eu
unset CDPATH
zap=swap-fstab
#@include fail
#@include stage
[ $# -eq 1 ] || zap_fail 93 "want 1 argument (PATH), not $#"
p=$1
case $p in
/*) ;;
*) zap_fail 93 "$p is not an absolute path" ;;
esac
case $p in
*[[:space:]]*) zap_fail 93 "$p holds whitespace, which an /etc/fstab field can't" ;;
esac
e= r=$p
while :; do
	case $r in
	*\\*) e=$e${r%%\\*}'\134' r=${r#*\\} ;;
	*) break ;;
	esac
done
e=$e$r
f=/etc/fstab
cd /etc
mode=644
if [ -e fstab ]; then
	[ -f fstab ] || zap_fail 93 "$f is not a regular file"
	mode=$(stat -L -c '%a' fstab) || zap_fail 93 "can't read $f"
	if command -v getfacl >/dev/null 2>&1; then
		acl=$(getfacl -c -s -p -- fstab) || zap_fail 93 "can't read the access list of $f"
	else
		acl=$(ls -lLd -- fstab)
		case $acl in
		??????????+*) ;;
		*) acl= ;;
		esac
	fi
	if [ -n "$acl" ]; then
		zap_fail 93 "$f has an access list, so its mode bits aren't its mode and can't be kept: remove it (setfacl -b $f), then apply again"
	fi
elif [ -L fstab ]; then
	zap_fail 93 "$f is a symbolic link that leads nowhere"
fi
dir=/etc
zap_clean
trap 'zap_unstage' EXIT
trap 'exit 1' HUP INT TERM
zap_stage
if [ -e fstab ]; then
	cat -- fstab >/proc/self/fd/3 2>/dev/null || zap_fail 93 "can't read $f"
fi
if ZAP_E=$e awk '$1 == ENVIRON["ZAP_E"] && $3 == "swap" { found = 1 } END { exit !found }' /proc/self/fd/3; then
	exit 0
fi
if [ -s /proc/self/fd/3 ] && [ -n "$(tail -c 1 /proc/self/fd/3)" ]; then
	echo >>/proc/self/fd/3
fi
printf '%s none swap sw 0 0\n' "$e" >>/proc/self/fd/3
chown 0:0 /proc/self/fd/3
chmod -- "$(printf '%04o' $((0$mode & 0777)))" /proc/self/fd/3
zap_commit fstab
trap - EXIT
