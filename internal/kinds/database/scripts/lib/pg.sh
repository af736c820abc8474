# The shared part of the pg-* scripts (run as root), which both take
# DATABASE ROLE first: zap_pg_name checks each name again as pg_hba.conf
# would read it (exit 93), psql and the postgres account must be there
# (94), zap_as_pg runs a command as the postgres account (sudo -n -u
# postgres, else setpriv), and zap_psql runs psql -X as postgres on the SQL
# on its stdin, under a timeout of its own, with the psql variables given
# as NAME=VALUE arguments (read as :'NAME' and :"NAME", so a value is never
# SQL text). The variables reach psql on its stdin too, each a \set line
# ahead of the SQL with its value quoted as psql reads a backslash
# command's argument (\ and ' doubled), so no value is on an argv.
zap_pg_name() {
	case $2 in
	'' | [+@/-]* | *[[:space:][:cntrl:]\#\",]*) zap_fail 93 "$1 $2 isn't a name pg_hba.conf reads as one" ;;
	esac
}
command -v psql >/dev/null 2>&1 || zap_fail 94 "there is no psql: install PostgreSQL first"
id -u postgres >/dev/null 2>&1 || zap_fail 94 "there is no postgres account: install PostgreSQL first"
zap_as_pg() {
	if command -v sudo >/dev/null 2>&1; then
		sudo -n -u postgres -- "$@"
	elif command -v setpriv >/dev/null 2>&1; then
		setpriv --reuid=postgres --regid="$(id -g postgres)" --init-groups -- "$@"
	else
		zap_fail 94 "neither sudo nor setpriv is here to act as postgres"
	fi
}
zap_psql() {
	{
		for zap_a; do
			printf '\\set %s '"'"'%s'"'"'\n' "${zap_a%%=*}" "$(printf '%s' "${zap_a#*=}" | sed "s/\\\\/\\\\\\\\/g; s/'/''/g")"
		done
		cat
	} | zap_as_pg timeout 50 psql -X -q -A -t -v ON_ERROR_STOP=1 -d postgres
}
zap_pg_name database "$1"
zap_pg_name role "$2"
cd /
