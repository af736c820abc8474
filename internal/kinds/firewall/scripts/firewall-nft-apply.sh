# zap firewall-nft-apply INCOMING OUTGOING [RULE...]
# Writes the nftables ruleset /etc/nftables.nft whole and loads it. Runs
# as root. INCOMING and OUTGOING are policies (allow, deny or reject);
# each RULE is PORT/tcp, PORT/udp or PORT (both), PORT 1 to 65535. The
# file holds one table, inet filter, replaced atomically by nft -f
# (declared, deleted and made again in one transaction; never flush
# ruleset, so other tables, such as fail2ban's, are left alone). Its input
# and output chains accept established and related connections and
# loopback first, so loading it never cuts the live SSH session, then the
# declared ports; deny is the drop policy, reject the drop policy with a
# trailing reject rule. The file is written to a file staged beside the
# old one in /etc, mode 600 root:root, checked with nft -c, and renamed
# over /etc/nftables.nft (mv -T), then loaded. Before it stages, the write
# removes what killed writers left in /etc; the staged file (.zap.lk.XXXXXX
# or .zap.pPID.UID.NS.BOOT.XXXXXX, lib/stage.sh) is removed on any
# failure. A wrong argument exits 93; no nft, a directory at the ruleset's
# name, or a staged file that changes under it, exits 94; a ruleset nft
# won't take exits 1 with nothing changed.
set -eu
unset CDPATH
zap=firewall-nft-apply
PATH=${PATH:-/usr/bin:/bin}:/usr/sbin:/sbin
umask 077
#@include fail
#@include stage
f=/etc/nftables.nft
[ $# -ge 2 ] || zap_fail 93 "want INCOMING OUTGOING [RULE...], not $# arguments"
for p in "$1" "$2"; do
	case $p in
	allow | deny | reject) ;;
	*) zap_fail 93 "not a policy (allow, deny or reject): $p" ;;
	esac
done
in=$1 out=$2
shift 2
for r do
	case $r in
	*/tcp | */udp) port=${r%/*} ;;
	*) port=$r ;;
	esac
	case $port in
	'' | 0* | *[!0-9]*) zap_fail 93 "not a port rule (PORT, PORT/tcp or PORT/udp, PORT 1 to 65535): $r" ;;
	esac
	[ ${#port} -le 5 ] && [ "$port" -le 65535 ] || zap_fail 93 "not a port (1 to 65535): $r"
done
command -v nft >/dev/null 2>&1 || zap_fail 94 "nft is not installed: declare zap.package({id: 'nftables', name: 'nftables'}) and order the firewall after it"
if [ -d "$f" ]; then
	zap_fail 94 "refused $f: it is a directory"
fi
policy() {
	case $1 in
	allow) echo accept ;;
	*) echo drop ;;
	esac
}
chain() { # NAME HOOK POLICY IFACE-KEYWORD
	printf '\tchain %s {\n' "$1"
	printf '\t\ttype filter hook %s priority filter; policy %s;\n' "$2" "$(policy "$3")"
	printf '\t\tct state established,related accept\n'
	printf '\t\t%s "lo" accept\n' "$4"
}
dir=/etc
cd -P -- "$dir"
zap_clean
trap 'zap_unstage' EXIT
trap 'exit 1' HUP INT TERM
zap_stage
staged_at=$dir/${tmp#./}
{
	printf '#!/usr/sbin/nft -f\n'
	printf '# Written whole by Zap (a firewall resource, backend nftables): edits are\n'
	printf '# replaced on its next apply. Only the table inet filter is replaced.\n'
	printf 'table inet filter\n'
	printf 'delete table inet filter\n'
	printf 'table inet filter {\n'
	chain input input "$in" iif
	for r do
		case $r in
		*/tcp) printf '\t\ttcp dport %s accept\n' "${r%/*}" ;;
		*/udp) printf '\t\tudp dport %s accept\n' "${r%/*}" ;;
		*) printf '\t\ttcp dport %s accept\n\t\tudp dport %s accept\n' "$r" "$r" ;;
		esac
	done
	if [ "$in" = reject ]; then
		printf '\t\treject\n'
	fi
	printf '\t}\n'
	chain output output "$out" oif
	if [ "$out" = reject ]; then
		printf '\t\treject\n'
	fi
	printf '\t}\n'
	printf '}\n'
} >/proc/self/fd/3 || zap_fail 1 "can't write $staged_at"
chown 0:0 /proc/self/fd/3 && chmod 600 /proc/self/fd/3 || zap_fail 1 "can't make $staged_at root's, mode 600"
nft -c -f "$staged_at" || zap_fail 1 "nft won't take the ruleset: nothing changed"
zap_commit "${f##*/}" || zap_fail 1 "can't rename the ruleset to $f"
trap - EXIT
nft -f "$f" || zap_fail 1 "nft -f $f failed"
