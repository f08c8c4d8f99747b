#!/bin/sh
# The pgaq-postgres image's entrypoint (deploy/Dockerfile, stage `postgres`): PostgreSQL 15
# from Debian's packages, initialised as the official `postgres` image initialises it, so
# docker-compose.yml works the same with either:
#
# - an empty $PGDATA is initialised (initdb) with the superuser POSTGRES_USER (default
#   postgres) and the password from POSTGRES_PASSWORD or the file POSTGRES_PASSWORD_FILE;
#   local socket connections are trusted, TCP ones need the password (scram-sha-256);
# - the database POSTGRES_DB (default: the user's name) is created, then the *.sql and *.sh
#   files of /docker-entrypoint-initdb.d run against it, on a server listening on its
#   socket only;
# - then (and at every later start) `postgres` runs in the foreground with the arguments
#   given (`postgres -c max_connections=300 ...`). Any other command runs as it is
#   (`psql`, `sh script`), which is how the one-shot grafana-db service uses this image.
set -eu

if [ "$(id -u)" = 0 ]; then
  # started as root (docker run --user 0): own the data, then drop to postgres
  mkdir -p "$PGDATA" && chown -R postgres:postgres "$PGDATA" && chmod 0700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

case "${1:-postgres}" in
  postgres | -*) ;;
  *) exec "$@" ;;
esac
[ "${1:-}" = postgres ] && shift

user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
  POSTGRES_PASSWORD="$(cat "$POSTGRES_PASSWORD_FILE")"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "docker-entrypoint: the database is uninitialised and no password is given:" \
         "set POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE" >&2
    exit 1
  fi
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
         --encoding=UTF8 --locale=C.UTF-8 ${POSTGRES_INITDB_ARGS:-} >/dev/null
  rm -f "$pwfile"
  printf '\nhost all all all scram-sha-256\n' >> "$PGDATA/pg_hba.conf"
  # a private server on the socket only while it is set up: no client sees it half done
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -c unix_socket_directories=/var/run/postgresql" start >/dev/null
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE :\"db\";" | psql -X -q -v ON_ERROR_STOP=1 -h /var/run/postgresql -U "$user" -d postgres -v db="$db"
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sql) psql -X -q -v ON_ERROR_STOP=1 -h /var/run/postgresql -U "$user" -d "$db" -f "$f" ;;
      *.sh) . "$f" ;;
      *) ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "docker-entrypoint: initialised $PGDATA (user $user, database $db)" >&2
fi
unset POSTGRES_PASSWORD
exec postgres -c listen_addresses="${POSTGRES_LISTEN_ADDRESSES:-*}" "$@"
