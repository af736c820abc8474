# zap svc-start MANAGER SERVICE
# Starts SERVICE: systemctl start, or rc-service SERVICE start.
#
# MANAGER is systemd or openrc; SERVICE is one word (a letter or digit,
# then letters, digits and _ . @ : -), checked again here. Runs as root.
# A wrong argument exits 93; the manager's own failure is its exit status.
set -eu
zap=svc-start
#@include svc-args
case $manager in
systemd) exec systemctl start -- "$svc" ;;
openrc) exec rc-service "$svc" start ;;
esac
zap_fail 93 "not a service manager with a backend: $manager"
