# zap user-sudo NAME MODE [COMMAND...]
# zap user-sudo NAME remove
# Installs the account NAME's sudoers file, /etc/sudoers.d/NAME: one
# comment line and the rule NAME ALL=(ALL:ALL) NOPASSWD: (MODE nopasswd) or
# PASSWD: (MODE password) and the COMMANDs joined with ", " (ALL when none
# is listed). With remove, the file is removed.
#
# The file is staged in /etc/sudoers.d under a name holding a dot (which
# sudo never reads: .zap.lk.XXXXXX or .zap.pPID.UID.NS.BOOT.XXXXXX,
# lib/stage.sh), mode 440 and root's, checked with visudo -c -f, and
# renamed over the old one (mv -T) only when visudo accepts it: a file
# visudo rejects is never installed, and the old one stays (exit 93). The
# staged file is removed on any failure, and before it stages, as before a
# removal, the write removes what killed writers left in /etc/sudoers.d. A
# directory at the name is in the way, and a staged file that changes
# under it fails (exit 94).
set -eu
unset CDPATH
zap=user-sudo
#@include fail
#@include stage
[ $# -ge 2 ] || zap_fail 2 "takes NAME MODE [COMMAND...] or NAME remove"
n=$1 mode=$2
shift 2
#@include account
# and none with a dot: sudo reads no file in sudoers.d whose name has one.
case $n in
*.*) zap_fail 2 "$n is not an account zap manages" ;;
esac
dir=/etc/sudoers.d
f=$dir/$n
if [ -d "$f" ] && [ ! -L "$f" ]; then
	zap_fail 94 "$f is in the way: it is a directory"
fi
case $mode in
remove)
	if [ -d "$dir" ]; then
		cd -P -- "$dir"
		zap_clean
	fi
	rm -f -- "$f"
	exit 0
	;;
nopasswd) tag='NOPASSWD: ' ;;
password) tag='PASSWD: ' ;;
*) zap_fail 2 "$mode is not nopasswd, password or remove" ;;
esac
command -v visudo >/dev/null 2>&1 || zap_fail 93 "visudo is missing: install sudo"
[ -d "$dir" ] || mkdir -m 755 -- "$dir"
cmds=
for c; do
	cmds=${cmds:+$cmds, }$c
done
[ -n "$cmds" ] || cmds=ALL
umask 077
cd -P -- "$dir"
zap_clean
trap 'zap_unstage' EXIT
trap 'exit 1' HUP INT TERM
zap_stage
t=$dir/${tmp#./}
printf '# zap: the sudo grant of %s\n%s ALL=(ALL:ALL) %s%s\n' "$n" "$n" "$tag" "$cmds" >/proc/self/fd/3
chown 0:0 /proc/self/fd/3
chmod 440 /proc/self/fd/3
if ! out=$(visudo -c -f "$t" 2>&1); then
	zap_fail 93 "visudo rejects the sudoers file for $n, so it isn't installed (the old one stays): $(printf '%s\n' "$out" | grep -v '^$' | head -n 3 | tr '\n' ' ')"
fi
zap_commit "$n"
trap - EXIT
