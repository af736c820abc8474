# zap svc-disable MANAGER SERVICE
# Disables SERVICE at boot: systemctl disable on systemd; on OpenRC,
# rc-update del SERVICE RUNLEVEL for each runlevel under /etc/runlevels
# that holds an entry for it.
#
# MANAGER is systemd or openrc; SERVICE is one word (a letter or digit,
# then letters, digits and _ . @ : -), checked again here. Runs as root.
# A wrong argument exits 93; the manager's own failure is its exit status.
set -eu
zap=svc-disable
#@include svc-args
case $manager in
systemd) exec systemctl disable -- "$svc" ;;
openrc)
	for f in /etc/runlevels/*/"$svc"; do
		if [ -e "$f" ] || [ -L "$f" ]; then
			rl=${f%/*}
			rc-update del "$svc" "${rl##*/}"
		fi
	done
	exit 0
	;;
esac
zap_fail 93 "not a service manager with a backend: $manager"
