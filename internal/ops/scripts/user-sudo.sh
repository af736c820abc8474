# zap user-sudo NAME MODE [COMMAND...]
# zap user-sudo NAME remove
# Installs the account NAME's sudoers file, /etc/sudoers.d/NAME: one
# comment line and the rule NAME ALL=(ALL:ALL) NOPASSWD: (MODE nopasswd) or
# PASSWD: (MODE password) and the COMMANDs joined with ", " (ALL when none
# is listed). With remove, the file is removed.
#
# The file is staged in /etc/sudoers.d under a name holding a dot (which
# sudo never reads), mode 440 and root's, checked with visudo -c -f, and
# renamed over the old one only when visudo accepts it: a file visudo
# rejects is never installed, and the old one stays (exit 93). A directory
# at the name is in the way (exit 94).
set -eu
zap=user-sudo
zap_fail() {
	echo "zap $zap: $2" >&2
	exit "$1"
}
[ $# -ge 2 ] || zap_fail 2 "takes NAME MODE [COMMAND...] or NAME remove"
n=$1 mode=$2
shift 2
case $n in
'' | root | -* | */* | *.*) zap_fail 2 "$n is not an account zap manages" ;;
esac
dir=/etc/sudoers.d
f=$dir/$n
if [ -d "$f" ] && [ ! -L "$f" ]; then
	zap_fail 94 "$f is in the way: it is a directory"
fi
case $mode in
remove)
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
t=$(mktemp "$dir/.zap-$n.XXXXXX")
trap 'rm -f -- "$t"' EXIT
printf '# zap: the sudo grant of %s\n%s ALL=(ALL:ALL) %s%s\n' "$n" "$n" "$tag" "$cmds" >"$t"
chown 0:0 "$t"
chmod 440 "$t"
if ! out=$(visudo -c -f "$t" 2>&1); then
	zap_fail 93 "visudo rejects the sudoers file for $n, so it isn't installed (the old one stays): $(printf '%s\n' "$out" | grep -v '^$' | head -n 3 | tr '\n' ' ')"
fi
mv -f -- "$t" "$f"
trap - EXIT
