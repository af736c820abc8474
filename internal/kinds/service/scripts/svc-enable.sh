# zap svc-enable MANAGER SERVICE
# Enables SERVICE at boot: systemctl enable on systemd; on OpenRC,
# rc-update add SERVICE default (an entry in any runlevel already reads
# as enabled, so this runs only for a service in none).
#
# MANAGER is systemd or openrc; SERVICE is one word (a letter or digit,
# then letters, digits and _ . @ : -), checked again here. Runs as root.
# A wrong argument exits 93; the manager's own failure is its exit status.
set -eu
zap=svc-enable
#@include svc-args
case $manager in
systemd) exec systemctl enable -- "$svc" ;;
openrc) exec rc-update add "$svc" default ;;
esac
zap_fail 93 "not a service manager with a backend: $manager"
