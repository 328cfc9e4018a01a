#!/usr/bin/env bash
# Starts what the tests use beside Node (installed by .ci/run from Debian's packages): PostgreSQL
# with a database `test` trusted on 127.0.0.1, and Redis on 127.0.0.1:6379. Idempotent: what is
# running is kept.
set -euo pipefail

version=$(ls /etc/postgresql | sort -V | tail -1)
hba=/etc/postgresql/$version/main/pg_hba.conf
if ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
  # First match wins in pg_hba.conf: the trust line goes on top.
  sed -i '1i host all all 127.0.0.1/32 trust' "$hba"
  pg_ctlcluster --skip-systemctl-redirect "$version" main reload >/dev/null 2>&1 || true
fi
if ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  pg_ctlcluster --skip-systemctl-redirect "$version" main start
fi
for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
if ! psql -h 127.0.0.1 -U postgres -Atc "select 1 from pg_database where datname = 'test'" | grep -q 1; then
  psql -h 127.0.0.1 -U postgres -qc 'create database test'
fi

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
fi
for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.2; done
