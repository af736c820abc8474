# zap pg-hba DATABASE ROLE ADDRESS METHOD
# Puts the rule `host DATABASE ROLE ADDRESS METHOD` in the pg_hba.conf the
# server names (SHOW hba_file), unless a line of those five fields is
# there already (then nothing is written or reloaded), and puts it in
# force. Runs as root; psql and every read and write of the file run as the
# postgres account.
#
# The file must be a regular file owned by postgres (else exit 93, nothing
# written). As postgres, a copy is made beside it (mktemp, in its
# directory) with the line above the first host-type record (host,
# hostssl, hostnossl, hostgssenc, hostnogssenc; indented ones too), or at
# the end when there is none; the copy must be the original plus that one
# line, and gets the original's mode and group. The original keeps a
# second name beside it, and the copy is renamed over it. The server's
# pg_hba_file_rules must then list no error, SELECT pg_reload_conf() must
# answer t, and pg_conf_load_time() must move within 30 s (read from a
# new connection each second). If any of that fails, the original is
# renamed back and the step fails with the server's error (exit 1).
set -eu
unset CDPATH
zap=pg-hba
#@include fail
[ $# -eq 4 ] || zap_fail 93 "want 4 arguments (DATABASE ROLE ADDRESS METHOD), not $#"
#@include pg
case $3 in
'' | *[!0-9A-Fa-f.:/]* | */*/*) zap_fail 93 "$3 isn't an IP address with its prefix length" ;;
*/*) ;;
*) zap_fail 93 "$3 isn't an IP address with its prefix length" ;;
esac
case $4 in
scram-sha-256 | md5 | password | gss | pam | reject | ident) ;;
*) zap_fail 93 "$4 isn't a method Zap writes on a host line" ;;
esac
line="host $1 $2 $3 $4"
f=$(echo 'SHOW hba_file' | zap_psql) || zap_fail 1 "psql as postgres failed reading the hba_file setting"
case $f in
/*) ;;
*) zap_fail 93 "the server names no pg_hba.conf by an absolute path ($f)" ;;
esac
if [ -L "$f" ] || [ ! -f "$f" ]; then
	zap_fail 93 "$f is not a regular file"
fi
[ "$(stat -c %u -- "$f")" = "$(id -u postgres)" ] ||
	zap_fail 93 "$f belongs to $(stat -c %U -- "$f"), not postgres: Zap rewrites pg_hba.conf only as postgres, and left it alone"

# The rewrite, as postgres: insert F, with the line on its stdin (never
# on an argv), prints the original's second name (exit 10: the line is
# there, nothing written); restore F OLD renames it back; drop F OLD
# removes the second name.
# shellcheck disable=SC2016 # expanded by the shell that runs as postgres
rewrite='set -eu
act=$1 f=$2
cd -- "${f%/*}/" 2>/dev/null || { echo "postgres can'\''t enter the directory of $f"; exit 93; }
b=${f##*/}
case $act in
restore) mv -f -- "$3" "$b"; exit ;;
drop) rm -f -- "$3"; exit ;;
esac
IFS= read -r line || { echo "no line on the rewrite'\''s stdin"; exit 93; }
if ZAP_LINE=$line awk '\''BEGIN { n = split(ENVIRON["ZAP_LINE"], w, " ") }
	{ sub(/#.*/, ""); if (NF != n) next; for (i = 1; i <= n; i++) if ($i != w[i]) next; found = 1; exit }
	END { exit !found }'\'' "$b"; then
	exit 10
fi
mode=$(stat -c %a -- "$b") group=$(stat -c %g -- "$b")
tmp=$(mktemp "./.$b.zap-XXXXXX") || { echo "postgres can'\''t write in the directory of $f"; exit 93; }
old=
trap '\''rm -f -- "$tmp"; [ -z "$old" ] || rm -f -- "$old"'\'' EXIT
ZAP_LINE=$line awk '\''!done && ($1 == "host" || $1 == "hostssl" || $1 == "hostnossl" || $1 == "hostgssenc" || $1 == "hostnogssenc") {
		print ENVIRON["ZAP_LINE"]; done = 1 }
	{ print }
	END { if (!done) print ENVIRON["ZAP_LINE"] }'\'' "$b" >"$tmp"
if ! ZAP_LINE=$line awk '\''!gone && $0 == ENVIRON["ZAP_LINE"] { gone = 1; next } { print }'\'' "$tmp" | cmp -s - "$b"; then
	echo "the rewritten copy of $f isn'\''t the original plus the line (does it end without a newline?): left alone"
	exit 93
fi
chmod "$mode" "$tmp"
chgrp "$group" "$tmp" 2>/dev/null || { echo "postgres can'\''t give the copy of $f its group ($group): left alone"; exit 93; }
old=./.$b.zap-old-$$
ln -- "$b" "$old"
mv -f -- "$tmp" "$b"
printf "%s\n" "$old"
trap - EXIT'
s=0
old=$(printf '%s\n' "$line" | zap_as_pg sh -c "$rewrite" sh insert "$f" 2>&1) || s=$?
case $s in
0) ;;
10) exit 0 ;;
*) zap_fail "$s" "$old" ;;
esac
zap_undo() {
	zap_as_pg sh -c "$rewrite" sh restore "$f" "$old" || zap_fail 1 "$1; and putting the old $f back failed: it is ${f%/*}/${old#./}"
	zap_fail 1 "$1; the old $f is back"
}
errs=$(echo "SELECT 'line ' || line_number || ': ' || error FROM pg_hba_file_rules WHERE error IS NOT NULL" | zap_psql 2>&1) ||
	zap_undo "reading pg_hba_file_rules failed (PostgreSQL 10 or later has it): $errs"
[ -z "$errs" ] || zap_undo "the server can't parse $f with the line in it: $(printf '%s' "$errs" | tr '\n' ' ')"
t0=$(echo 'SELECT pg_conf_load_time()' | zap_psql 2>&1) || zap_undo "reading pg_conf_load_time() failed: $t0"
ok=$(echo 'SELECT pg_reload_conf()' | zap_psql 2>&1) || zap_undo "SELECT pg_reload_conf() failed: $ok"
[ "$ok" = t ] || zap_undo "the server didn't confirm the reload: $ok"
i=0
while :; do
	sleep 1
	t=$(echo 'SELECT pg_conf_load_time()' | zap_psql 2>&1) || t=
	[ -z "$t" ] || [ "$t" = "$t0" ] || break
	i=$((i + 1))
	[ "$i" -lt 30 ] || zap_undo "the server didn't load its configuration within 30 seconds (a postgresql.conf it can't parse keeps it from loading)"
done
zap_as_pg sh -c "$rewrite" sh drop "$f" "$old"
