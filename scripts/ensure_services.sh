#!/usr/bin/env bash
# Make sure the services the tests talk to are up:
#   PostgreSQL on 127.0.0.1:5432, Redis on 127.0.0.1:6379 and MariaDB on 127.0.0.1:3306
#   (the WordPress plugin's tests: root, empty password).
# Each is started only if it is not already answering, then waited for
# (up to SERVICE_WAIT seconds, default 20). Exits non-zero with a clear message
# if either cannot be reached: CI must FAIL, not skip, when a service is missing.
# Idempotent; safe to run repeatedly (takes well under a second when all are up).
set -uo pipefail

# Overridable for testing the script itself; the tests use the defaults.
PG_HOST=127.0.0.1
PG_PORT=${ENSURE_PG_PORT:-5432}
REDIS_HOST=127.0.0.1
REDIS_PORT=${ENSURE_REDIS_PORT:-6379}
MARIADB_HOST=127.0.0.1
MARIADB_PORT=${ENSURE_MARIADB_PORT:-3306}
WAIT=${SERVICE_WAIT:-20}

log() { echo "ensure_services: $*"; }
err() { echo "ensure_services: ERROR: $*" >&2; }

tcp_open() {  # host port -> 0 if something accepts a TCP connection
    timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null
}

pg_ok() {
    if command -v pg_isready >/dev/null 2>&1; then
        pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t 2
    else
        tcp_open "$PG_HOST" "$PG_PORT"
    fi
}

redis_ok() {
    if command -v redis-cli >/dev/null 2>&1; then
        [ "$(timeout 3 redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null)" = "PONG" ]
    else
        # No client: speak RESP by hand.
        timeout 3 bash -c "exec 3<>/dev/tcp/$REDIS_HOST/$REDIS_PORT; printf 'PING\r\n' >&3; head -c 7 <&3" 2>/dev/null \
            | grep -q '+PONG'
    fi
}

mariadb_ok() {
    if command -v mysqladmin >/dev/null 2>&1; then
        mysqladmin --protocol=tcp -h "$MARIADB_HOST" -P "$MARIADB_PORT" -u root --connect-timeout=2 ping >/dev/null 2>&1
    else
        tcp_open "$MARIADB_HOST" "$MARIADB_PORT"
    fi
}

wait_for() {  # name check_fn
    local name=$1 fn=$2 i
    for ((i = 0; i < WAIT * 2; i++)); do
        if "$fn"; then return 0; fi
        sleep 0.5
    done
    "$fn"
}

start_postgres() {
    if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ ! -d /etc/postgresql ]; then
        err "PostgreSQL is not installed (no pg_ctlcluster or /etc/postgresql); apt-get install postgresql"
        return 1
    fi
    local ver
    for ver in $(ls /etc/postgresql); do
        [ -d "/etc/postgresql/$ver/main" ] || continue
        log "starting PostgreSQL $ver/main"
        pg_ctlcluster --skip-systemctl-redirect "$ver" main start \
            || log "pg_ctlcluster $ver main start returned non-zero (it may already be starting)"
    done
}

start_redis() {
    if ! command -v redis-server >/dev/null 2>&1; then
        err "Redis is not installed (no redis-server); apt-get install redis-server"
        return 1
    fi
    local extra=()
    [ -d /var/lib/redis ] && extra+=(--dir /var/lib/redis)
    [ -d /var/log/redis ] && extra+=(--logfile /var/log/redis/ci.log)
    log "starting redis-server on $REDIS_HOST:$REDIS_PORT"
    redis-server --daemonize yes --bind "$REDIS_HOST" --port "$REDIS_PORT" \
        --save "" --appendonly no "${extra[@]}" \
        || log "redis-server returned non-zero"
}

start_mariadb() {
    if [ ! -x /etc/init.d/mariadb ] && ! command -v mariadbd-safe >/dev/null 2>&1; then
        err "MariaDB is not installed (no /etc/init.d/mariadb); apt-get install mariadb-server"
        return 1
    fi
    log "starting MariaDB"
    if [ -x /etc/init.d/mariadb ]; then
        /etc/init.d/mariadb start >/dev/null 2>&1 || log "/etc/init.d/mariadb start returned non-zero"
    else
        (mariadbd-safe >/dev/null 2>&1 &)
    fi
}

status=0

if pg_ok; then
    log "PostgreSQL up on $PG_HOST:$PG_PORT"
else
    start_postgres
    if wait_for PostgreSQL pg_ok; then
        log "PostgreSQL up on $PG_HOST:$PG_PORT"
    else
        err "PostgreSQL not reachable on $PG_HOST:$PG_PORT after ${WAIT}s"
        ls /var/log/postgresql/*.log >/dev/null 2>&1 && tail -n 20 /var/log/postgresql/*.log >&2
        status=1
    fi
fi

if redis_ok; then
    log "Redis up on $REDIS_HOST:$REDIS_PORT"
else
    start_redis
    if wait_for Redis redis_ok; then
        log "Redis up on $REDIS_HOST:$REDIS_PORT"
    else
        err "Redis not answering PING on $REDIS_HOST:$REDIS_PORT after ${WAIT}s"
        [ -f /var/log/redis/ci.log ] && tail -n 20 /var/log/redis/ci.log >&2
        status=1
    fi
fi

if mariadb_ok; then
    log "MariaDB up on $MARIADB_HOST:$MARIADB_PORT"
else
    start_mariadb
    if wait_for MariaDB mariadb_ok; then
        log "MariaDB up on $MARIADB_HOST:$MARIADB_PORT"
    else
        err "MariaDB not answering on $MARIADB_HOST:$MARIADB_PORT as root after ${WAIT}s"
        status=1
    fi
fi

exit $status
