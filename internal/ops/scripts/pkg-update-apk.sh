# zap pkg-update-apk
# Refreshes apk's package index (apk update), the cache-update step Zap puts
# in front of each batch of installs. Runs as root, with no terminal: apk
# reads nothing from the script's stdin (</dev/null).
# A wrong argument exits 93; apk's own failure is its exit status.
set -eu
zap=pkg-update-apk
[ $# -eq 0 ] || {
	echo "zap $zap: want no argument, not $#" >&2
	exit 93
}
exec apk update </dev/null
