# zap svc-reload MANAGER SERVICE
# Reloads SERVICE if it is running, for a trigger: on systemd,
# systemctl daemon-reload, then systemctl try-reload-or-restart; on
# OpenRC, rc-service --ifstarted SERVICE reload, where a service that
# can't reload fails the step. A stopped service is left stopped.
#
# MANAGER is systemd or openrc; SERVICE is one word (a letter or digit,
# then letters, digits and _ . @ : -), checked again here. Runs as root.
# A wrong argument exits 93; the manager's own failure is its exit status.
set -eu
zap=svc-reload
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
systemd)
	systemctl daemon-reload
	exec systemctl try-reload-or-restart -- "$svc"
	;;
openrc) exec rc-service --ifstarted "$svc" reload ;;
esac
zap_fail 93 "not a service manager with a backend: $manager"
