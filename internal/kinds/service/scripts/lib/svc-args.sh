# The arguments every svc-* script takes, MANAGER SERVICE, checked again on
# the target: two of them, and SERVICE one word (a letter or digit, then
# letters, digits and _ . @ : -). A wrong argument exits 93. The including
# script sets zap (its name) first.
zap_fail() {
	echo "zap $zap: $2" >&2
	exit "$1"
}
[ $# -eq 2 ] || zap_fail 93 "want 2 arguments (MANAGER SERVICE), not $#"
manager=$1 svc=$2
case $svc in
'' | [!A-Za-z0-9]* | *[!A-Za-z0-9_.@:-]*) zap_fail 93 "not a service name: $svc" ;;
esac
