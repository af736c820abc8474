# zap svc-zap MANAGER SERVICE
# Resets a crashed OpenRC SERVICE (its daemon died while it was marked
# started) with rc-service SERVICE zap, so the start that follows starts
# it: a plain start of a crashed service does nothing. OpenRC only.
#
# MANAGER is systemd or openrc; SERVICE is one word (a letter or digit,
# then letters, digits and _ . @ : -), checked again here. Runs as root.
# A wrong argument exits 93; the manager's own failure is its exit status.
set -eu
zap=svc-zap
zap_fail() {
	echo "zap $zap: $2" >&2
	exit "$1"
}
[ $# -eq 2 ] || zap_fail 93 "want 2 arguments (MANAGER SERVICE), not $#"
manager=$1 svc=$2
case $svc in
'' | [!A-Za-z0-9]* | *[!A-Za-z0-9_.@:-]*) zap_fail 93 "not a service name: $svc" ;;
esac
case $manager in
openrc) exec rc-service "$svc" zap ;;
esac
zap_fail 93 "only OpenRC resets a crashed service, not $manager"
