# zap svc-restart MANAGER SERVICE
# Restarts SERVICE if it is running, for a trigger: on systemd,
# systemctl daemon-reload (a unit file the plan changed is read), then
# systemctl try-restart; on OpenRC, rc-service --ifstarted SERVICE restart.
# A stopped service is left stopped: it starts on the new state.
#
# MANAGER is systemd or openrc; SERVICE is one word (a letter or digit,
# then letters, digits and _ . @ : -), checked again here. Runs as root.
# A wrong argument exits 93; the manager's own failure is its exit status.
set -eu
zap=svc-restart
#@include svc-args
case $manager in
systemd)
	systemctl daemon-reload
	exec systemctl try-restart -- "$svc"
	;;
openrc) exec rc-service --ifstarted "$svc" restart ;;
esac
zap_fail 93 "not a service manager with a backend: $manager"
