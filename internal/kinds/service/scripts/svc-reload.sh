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
#@include svc-args
case $manager in
systemd)
	systemctl daemon-reload
	exec systemctl try-reload-or-restart -- "$svc"
	;;
openrc) exec rc-service --ifstarted "$svc" reload ;;
esac
zap_fail 93 "not a service manager with a backend: $manager"
