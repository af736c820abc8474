# zap svc-start MANAGER SERVICE
# Starts SERVICE: systemctl start, or rc-service SERVICE start.
#
# MANAGER is systemd or openrc; SERVICE is one word (a letter or digit,
# then letters, digits and _ . @ : -), checked again here. Runs as root.
# A wrong argument exits 93; the manager's own failure is its exit status.
set -eu
zap=svc-start
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
systemd) exec systemctl start -- "$svc" ;;
openrc) exec rc-service "$svc" start ;;
esac
zap_fail 93 "not a service manager with a backend: $manager"
