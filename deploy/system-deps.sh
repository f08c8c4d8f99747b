#!/usr/bin/env bash
# Installs the Debian packages that pgaq uses beside Python when they are missing:
# the PostgreSQL JDBC driver and a JRE for the Spark statistics job (always), and with
# --test also Chromium (the /dashboard test) and docker-compose (validating the compose
# file). Only root on a Debian-like system installs; anyone else is told what to install.
set -u
need=()
jar="${PGAQ_JDBC_JAR:-/usr/share/java/postgresql.jar}"
[ -f "$jar" ] || need+=(libpostgresql-jdbc-java)
command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
if [ "${1:-}" = "--test" ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "pgaq: missing system packages: ${need[*]} (install them, e.g. with apt-get)" >&2
  exit 0
fi
echo "pgaq: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
