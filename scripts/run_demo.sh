#!/usr/bin/env bash
# `make run`: migrate the embedded database, start the demo upstream, sync it,
# then serve the app with gunicorn on 127.0.0.1:8000 plus the scheduler.
set -euo pipefail
cd "$(dirname "$0")/.."
export UPSTREAM_URL="${UPSTREAM_URL:-http://127.0.0.1:8001}"
export UPSTREAM_TOKEN="${UPSTREAM_TOKEN:-demo-token}"
export PUBLIC_BASE_URL="${PUBLIC_BASE_URL:-http://127.0.0.1:8000}"
export SYNC_INTERVAL_SECONDS="${SYNC_INTERVAL_SECONDS:-300}"
FLASK=".venv/bin/flask --app wsgi"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM

$FLASK db upgrade
$FLASK demo-upstream --port 8001 --companies 40 --products 60 --seed 1 >instance/demo-upstream.log 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do
  curl -fs -o /dev/null -H "Authorization: Bearer $UPSTREAM_TOKEN" "$UPSTREAM_URL/v1/companies?limit=1" 2>/dev/null && break
  sleep 0.2
done
$FLASK sync
$FLASK scheduler >instance/scheduler.log 2>&1 &
pids+=($!)
$FLASK demo-urls || true
exec_gunicorn() {
  .venv/bin/gunicorn --workers 2 --threads 4 --bind 127.0.0.1:8000 --access-logfile - 'wsgi:create_app()'
}
exec_gunicorn
