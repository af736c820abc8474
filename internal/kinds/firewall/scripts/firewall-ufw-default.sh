# zap firewall-ufw-default DIRECTION POLICY
# Sets ufw's default POLICY (allow, deny or reject) for DIRECTION
# (incoming or outgoing) with ufw default. Runs as root. Any other
# argument exits 93 and nothing is changed; no ufw exits 94.
set -eu
zap=firewall-ufw-default
PATH=${PATH:-/usr/bin:/bin}:/usr/sbin:/sbin
#@include fail
[ $# -eq 2 ] || zap_fail 93 "want 2 arguments (DIRECTION POLICY), not $#"
case $1 in
incoming | outgoing) ;;
*) zap_fail 93 "not a direction (incoming or outgoing): $1" ;;
esac
case $2 in
allow | deny | reject) ;;
*) zap_fail 93 "not a policy (allow, deny or reject): $2" ;;
esac
command -v ufw >/dev/null 2>&1 || zap_fail 94 "ufw is not installed: declare zap.package({id: 'ufw', name: 'ufw'}) and order the firewall after it"
ufw default "$2" "$1" || zap_fail 1 "ufw default $2 $1 failed"
