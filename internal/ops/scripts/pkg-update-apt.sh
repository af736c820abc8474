# zap pkg-update-apt
# Refreshes apt's package index (apt-get update), the cache-update step Zap
# puts in front of each batch of installs. Runs as root, with no terminal:
# apt-get reads nothing from the script's stdin (</dev/null). It asks apt to
# wait up to 120 s for its lock (DPkg::Lock::Timeout: a fresh host's
# unattended-upgrades holds it at boot); an apt that doesn't know the
# option ignores it and fails at once, as it would without it.
# A wrong argument exits 93; apt-get's own failure is its exit status.
set -eu
zap=pkg-update-apt
[ $# -eq 0 ] || {
	echo "zap $zap: want no argument, not $#" >&2
	exit 93
}
DEBIAN_FRONTEND=noninteractive
export DEBIAN_FRONTEND
exec apt-get update -q -o DPkg::Lock::Timeout=120 </dev/null
