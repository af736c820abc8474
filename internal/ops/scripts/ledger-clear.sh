# zap ledger-clear SERVICE
# Removes the pending-trigger marker /var/lib/zap/pending/SERVICE, after
# the service's own change completed (whether or not it was running: a
# stopped service owes nothing, since it starts on the new state). No
# marker is no change. Runs as root. A pending path that is a symbolic
# link fails (exit 94) and removes nothing; a wrong argument exits 93.
set -eu
zap=ledger-clear
#@include fail
[ $# -eq 1 ] || zap_fail 93 "want 1 argument (SERVICE), not $#"
svc=$1
case $svc in
'' | [!A-Za-z0-9]* | *[!A-Za-z0-9_.@:-]*) zap_fail 93 "not a service name: $svc" ;;
esac
for d in /var/lib/zap /var/lib/zap/pending; do
	[ ! -L "$d" ] || zap_fail 94 "$d is a symbolic link; Zap keeps its markers only in a directory of its own"
done
[ -d /var/lib/zap/pending ] || exit 0
rm -f -- "/var/lib/zap/pending/$svc"
