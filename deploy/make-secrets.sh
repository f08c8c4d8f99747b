#!/bin/sh
# Creates the secrets docker-compose.yml mounts (deploy/secrets/<name>), each a random
# value, unless it exists already: run it once before the first `docker-compose up`.
# Put your own value in a file instead to choose it (no trailing newline needed).
#
# The directory is private to you (0700); the files are 0644 so that the containers'
# unprivileged users (postgres, grafana, pgaq) can read them once mounted.
set -eu
dir="${1:-$(dirname "$0")/secrets}"
mkdir -p "$dir"
chmod 0700 "$dir"
for name in postgres_password admin_token grafana_db_password grafana_admin_password; do
  file="$dir/$name"
  if [ -s "$file" ]; then
    echo "kept    $file"
  else
    # 32 random bytes, URL-safe (no quoting trouble in DSNs or headers)
    head -c 32 /dev/urandom | base64 | tr -d '\n=' | tr '+/' '-_' >"$file"
    echo "created $file"
  fi
  chmod 0644 "$file"
done
