#!/bin/sh
# The compose `ha` profile's one-shot `ha-db`: through HAProxy (the primary), as Patroni's
# superuser `postgres`, makes pgaq's login role and database, as the official image's
# POSTGRES_USER and POSTGRES_DB are made on the single server (the role is a superuser
# there too). Idempotent: it runs at every start of the profile; pgaq's core starts once it
# has succeeded. One password for all (the secret postgres_password): Patroni's template
# gives it to postgres and replicator as well.
set -eu
PGPASSWORD="$(cat "${PGAQ_DB_PASSWORD_FILE:-/run/secrets/postgres_password}")"
export PGPASSWORD
exec psql -X -q -v ON_ERROR_STOP=1 -v user="${POSTGRES_USER:-pgaq}" -v db="${POSTGRES_DB:-pgaq}" \
  -v password_file="${PGAQ_DB_PASSWORD_FILE:-/run/secrets/postgres_password}" <<'SQL'
\set password `cat :'password_file'`
SELECT format('CREATE ROLE %I', :'user') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'user') \gexec
SELECT format('ALTER ROLE %I WITH LOGIN SUPERUSER PASSWORD %L', :'user', btrim(:'password', E' \t\r\n')) \gexec
\unset password
SELECT format('CREATE DATABASE %I OWNER %I', :'db', :'user')
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'db') \gexec
SQL
