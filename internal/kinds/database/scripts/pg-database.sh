# zap pg-database DATABASE ROLE
# Makes the role ROLE (LOGIN, no password) unless it exists, then the
# database DATABASE owned by it unless it exists, and sets the database's
# owner back to ROLE when it is another. Runs as root; psql runs as the
# postgres account. Never sets or reads a password, never drops anything.
# A name pg_hba.conf would misread exits 93; no PostgreSQL, 94.
set -eu
unset CDPATH
zap=pg-database
#@include fail
[ $# -eq 2 ] || zap_fail 93 "want 2 arguments (DATABASE ROLE), not $#"
#@include pg
zap_psql "db=$1" "role=$2" <<'SQL' || zap_fail 1 "psql as postgres failed"
SELECT format('CREATE ROLE %I LOGIN', :'role')
	WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role') \gexec
SELECT format('CREATE DATABASE %I OWNER %I', :'db', :'role')
	WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'db') \gexec
SELECT format('ALTER DATABASE %I OWNER TO %I', :'db', :'role')
	FROM pg_database WHERE datname = :'db' AND pg_get_userbyid(datdba) <> :'role' \gexec
SQL
