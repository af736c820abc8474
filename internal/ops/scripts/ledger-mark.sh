# zap ledger-mark SERVICE ACTION
# Writes the pending-trigger marker /var/lib/zap/pending/SERVICE holding
# ACTION (restart or reload), before the first source of the service
# changes: if the run dies before the service's own change completes, the
# next plan fires the action again. Runs as root.
#
# /var/lib/zap and pending/ are made when missing and given mode 755, and
# the marker mode 644, whatever the umask; either directory as a symbolic
# link, or not a directory, fails (exit 94) and writes nothing. A marker
# already owing a restart is kept: a restart outranks a reload. The marker
# is written to a file staged beside its name (.zap.lk.XXXXXX or
# .zap.pPID.UID.NS.BOOT.XXXXXX, lib/stage.sh) and renamed into place (mv
# -T), so it is there whole or not at all; the staged file is removed on
# any failure. Before it stages, the write removes what killed writers
# left in pending/. A staged file that changes under it exits 94; a wrong
# argument exits 93.
set -eu
zap=ledger-mark
#@include fail
#@include stage
[ $# -eq 2 ] || zap_fail 93 "want 2 arguments (SERVICE ACTION), not $#"
svc=$1 action=$2
case $svc in
'' | [!A-Za-z0-9]* | *[!A-Za-z0-9_.@:-]*) zap_fail 93 "not a service name: $svc" ;;
esac
case $action in
restart | reload) ;;
*) zap_fail 93 "not restart or reload: $action" ;;
esac
umask 022
state=/var/lib/zap
for d in "$state" "$state/pending"; do
	[ ! -L "$d" ] || zap_fail 94 "$d is a symbolic link; Zap keeps its markers only in a directory of its own"
	if [ ! -e "$d" ]; then
		mkdir -p -- "${d%/*}"
		mkdir -- "$d" 2>/dev/null || [ -d "$d" ] || zap_fail 94 "can't make $d"
	fi
	[ -d "$d" ] && [ ! -L "$d" ] || zap_fail 94 "$d is not a directory"
	chmod 755 -- "$d"
done
m=$state/pending/$svc
if [ "$action" = reload ] && [ -f "$m" ] && [ ! -L "$m" ]; then
	owed=$(cat -- "$m") || owed=
	[ "$owed" != restart ] || exit 0
fi
dir=$state/pending
cd -P -- "$dir"
zap_clean
trap 'zap_unstage' EXIT
trap 'exit 1' HUP INT TERM
zap_stage
printf '%s\n' "$action" >/proc/self/fd/3
chmod 644 /proc/self/fd/3
zap_commit "$svc"
trap - EXIT
