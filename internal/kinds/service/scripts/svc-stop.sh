# zap svc-stop MANAGER SERVICE
# Stops SERVICE: systemctl stop, or rc-service SERVICE stop.
#
# MANAGER is systemd or openrc; SERVICE is one word (a letter or digit,
# then letters, digits and _ . @ : -), checked again here. Runs as root.
# A wrong argument exits 93; the manager's own failure is its exit status.
set -eu
zap=svc-stop
#@include svc-args
case $manager in
systemd) exec systemctl stop -- "$svc" ;;
openrc) exec rc-service "$svc" stop ;;
esac
zap_fail 93 "not a service manager with a backend: $manager"
