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
#@include svc-args
case $manager in
openrc) exec rc-service "$svc" zap ;;
esac
zap_fail 93 "only OpenRC resets a crashed service, not $manager"
