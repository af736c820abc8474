# zap pkg-update-apt
# Refreshes apt's package index (apt-get update), the cache-update step Zap
# puts in front of each batch of installs. Runs as root, with no terminal:
# apt-get reads nothing from the script's stdin (</dev/null).
# A wrong argument exits 93; apt-get's own failure is its exit status.
set -eu
zap=pkg-update-apt
[ $# -eq 0 ] || {
	echo "zap $zap: want no argument, not $#" >&2
	exit 93
}
DEBIAN_FRONTEND=noninteractive
export DEBIAN_FRONTEND
exec apt-get -q update </dev/null
