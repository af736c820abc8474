# zap motd-write PATH MESSAGE
# Writes MESSAGE and a line break to PATH: into a new file beside it,
# renamed over the name, so a reader sees the old text or the new one,
# whole. Runs as the login user. The operation of the test-only motd kind
# (internal/kinds/motd), which a test build alone carries.
set -eu
zap=motd-write
#@include fail
[ $# -eq 2 ] || zap_fail 93 "want 2 arguments (PATH MESSAGE), not $#"
tmp=$1.zap-motd.$$
printf '%s\n' "$2" >"$tmp" || zap_fail 1 "can't write $tmp"
mv -f -- "$tmp" "$1" || { rm -f -- "$tmp"; zap_fail 1 "can't rename $tmp to $1"; }
