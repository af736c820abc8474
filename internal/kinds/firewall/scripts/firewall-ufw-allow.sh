# zap firewall-ufw-allow RULE
# Adds the inbound allow RULE with ufw allow: PORT (both protocols),
# PORT/tcp, PORT/udp, or an application profile's name (as
# /etc/ufw/applications.d names it, 'OpenSSH', 'Nginx Full'). Runs as root.
# A rule ufw already has is skipped by ufw itself. RULE is checked again
# here: one that is empty, begins with - (an option to ufw), spans lines,
# or a port outside 1 to 65535 exits 93 and nothing is changed; no ufw
# exits 94.
set -eu
zap=firewall-ufw-allow
PATH=${PATH:-/usr/bin:/bin}:/usr/sbin:/sbin
#@include fail
nl='
'
[ $# -eq 1 ] || zap_fail 93 "want 1 argument (RULE), not $#"
rule=$1
case $rule in
'' | -* | *"$nl"*) zap_fail 93 "not a rule: it is empty, begins with - or spans lines" ;;
esac
case $rule in
*[!0-9]*/tcp | *[!0-9]*/udp) port= ;;
*/tcp | */udp) port=${rule%/*} ;;
*[!0-9]*) port= ;;
*) port=$rule ;;
esac
if [ -n "$port" ]; then
	case $port in
	0*) zap_fail 93 "not a port (1 to 65535): $port" ;;
	esac
	[ ${#port} -le 5 ] && [ "$port" -le 65535 ] || zap_fail 93 "not a port (1 to 65535): $port"
fi
command -v ufw >/dev/null 2>&1 || zap_fail 94 "ufw is not installed: declare zap.package({id: 'ufw', name: 'ufw'}) and order the firewall after it"
ufw allow "$rule" || zap_fail 1 "ufw allow $rule failed"
