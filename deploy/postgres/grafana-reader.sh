#!/bin/sh
# The compose service `grafana-db` (image postgres:15): once core reports healthy, i.e. the
# schema is migrated, (re)creates Grafana's read-only database role with the password from
# its secret (grafana-reader.sql). Connection from PGHOST/PGPORT/PGUSER/PGDATABASE; the
# owner's password from PGAQ_DB_PASSWORD_FILE.
set -eu
PGPASSWORD="$(cat "${PGAQ_DB_PASSWORD_FILE:-/run/secrets/postgres_password}")"
export PGPASSWORD
exec psql -X -q \
  -v reader="${PGAQ_GRAFANA_DB_USER:-pgaq_grafana}" \
  -v password_file="${PGAQ_GRAFANA_DB_PASSWORD_FILE:-/run/secrets/grafana_db_password}" \
  -f "$(dirname "$0")/grafana-reader.sql"
