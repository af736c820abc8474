# zap swap-on PATH
# Enables the swap file PATH with swapon. Runs as root. The path check
# (lib/swap-path.sh) comes first, and the file must be root's, with no
# permission for its group or others (as swap-make leaves it): otherwise
# it is refused (exit 94) and nothing is enabled. A swap already active is
# left as it is.
set -eu
zap=swap-on
#@include swap-path
[ $# -eq 1 ] || zap_fail 93 "want 1 argument (PATH), not $#"
zap_swap_path "$1"
[ -e "./$name" ] || zap_fail 94 "refused $p: there is no file there to enable"
if zap_swap_active; then
	exit 0
fi
st=$(stat -c '%u %a' -- "./$name")
u=${st%% *} m=${st#* }
[ "$u" = 0 ] || zap_fail 94 "refused $p: it is owned by uid $u, not root"
[ $((0$m & 077)) -eq 0 ] || zap_fail 94 "refused $p: its group or others have access to it (mode $m): chmod 600 it"
swapon -- "./$name" || zap_fail 1 "swapon $p failed"
