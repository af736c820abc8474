# zap firewall-ufw-enable
# Turns ufw on, now and at boot, with ufw --force enable (no question
# asked; on an active ufw it loads the rules again). Runs as root; the
# allow rules and default policies are set before it. No ufw exits 94.
set -eu
zap=firewall-ufw-enable
PATH=${PATH:-/usr/bin:/bin}:/usr/sbin:/sbin
#@include fail
[ $# -eq 0 ] || zap_fail 93 "want no argument, not $#"
command -v ufw >/dev/null 2>&1 || zap_fail 94 "ufw is not installed: declare zap.package({id: 'ufw', name: 'ufw'}) and order the firewall after it"
ufw --force enable || zap_fail 1 "ufw --force enable failed"
