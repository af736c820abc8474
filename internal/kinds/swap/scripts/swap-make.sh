# zap swap-make PATH SIZE
# Makes the swap file PATH anew, SIZE long (digits, then K, M, G or T for
# KiB, MiB, GiB or TiB; bytes without), and formats it with mkswap. Runs
# as root, only for a swap that isn't active: an active one is refused
# (exit 94), never made again.
#
# First the path check (lib/swap-path.sh): a symbolic link at PATH, or a
# directory on the way to it, as named or as resolved, that isn't root's or
# that a group or other account can write, is refused (exit 94) and
# nothing is made. Then, in PATH's directory: what was at the name is
# removed, a new empty file made in its place (never through a name that
# appeared meanwhile), given root:root and mode 600, allocated with
# fallocate, else written with dd from /dev/zero (in whole KiB), so a
# short file a full disk left behind is made whole, and formatted.
set -eu
zap=swap-make
#@include swap-path
[ $# -eq 2 ] || zap_fail 93 "want 2 arguments (PATH SIZE), not $#"
size=$2
n=${size%[KMGT]}
u=${size#"$n"}
case $n in
'' | *[!0-9]*) zap_fail 93 "$size is not a size such as 2G" ;;
esac
while :; do
	case $n in
	0?*) n=${n#0} ;;
	*) break ;;
	esac
done
case $u in
'') m=1 ;;
K) m=1024 ;;
M) m=1048576 ;;
G) m=1073741824 ;;
T) m=1099511627776 ;;
esac
[ "${#n}" -le 15 ] && [ "$n" -le $((9007199254740991 / m)) ] || zap_fail 93 "$size is too large"
bytes=$((n * m))
[ "$bytes" -gt 0 ] || zap_fail 93 "$size is not a size above 0"
zap_swap_path "$1"
if zap_swap_active; then
	zap_fail 94 "refused $p: it is an active swap, and an active swap isn't made again"
fi
rm -f -- "./$name"
(
	umask 077
	set -C
	: >"./$name"
) 2>/dev/null || zap_fail 94 "refused $p: something was put at its name while it was made"
chown 0:0 -- "./$name"
chmod 600 -- "./$name"
if ! fallocate -l "$bytes" -- "./$name" 2>/dev/null; then
	dd if=/dev/zero of="./$name" bs=1024 count=$((bytes / 1024)) 2>/dev/null ||
		zap_fail 1 "can't allocate $size at $p (is the disk full?)"
fi
mkswap -- "./$name" >/dev/null || zap_fail 1 "mkswap $p failed"
