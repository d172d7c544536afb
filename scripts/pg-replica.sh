#!/usr/bin/env bash
# A PostgreSQL primary and a standby on loopback ports, for txbench's failover
# tests and benchmarks, from Debian's packages (postgresql, postgresql-common:
# pg_createcluster, pg_basebackup). Two clusters of their own; the machine's
# own cluster is never touched.
#
#   scripts/pg-replica.sh up [--async]  primary, then a standby streaming from it
#                                       (synchronous by default: a commit returns once
#                                       the standby has flushed it)
#   scripts/pg-replica.sh status        the multi-host URL (read-write sessions find
#                                       the primary, whichever it is); roles on stderr
#   scripts/pg-replica.sh failover      stop the primary at once (-m immediate) and
#                                       promote the standby
#   scripts/pg-replica.sh down          stop both and remove them
#
# PG_REPLICA_PORT (default 5442: primary 5442, standby 5443) and
# PG_REPLICA_NAME (default txbench_replica: clusters NAME_primary, NAME_standby)
# move it.
set -euo pipefail
PORT=${PG_REPLICA_PORT:-5442}
NAME=${PG_REPLICA_NAME:-txbench_replica}
PRIMARY=${NAME}_primary
STANDBY=${NAME}_standby
VERSION=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -1)
[ -n "$VERSION" ] || { echo "pg-replica: needs Debian's postgresql (/etc/postgresql)" >&2; exit 1; }

ctl() { pg_ctlcluster --skip-systemctl-redirect "$VERSION" "$1" "${@:2}"; }
port_of() { if [ "$1" = "$PRIMARY" ]; then echo "$PORT"; else echo $((PORT + 1)); fi; }
sql() { psql -X -q -A -t -h 127.0.0.1 -p "$(port_of "$1")" -U postgres -d postgres -c "$2"; }
exists() { pg_lsclusters -h | awk -v v="$VERSION" -v n="$1" '$1 == v && $2 == n {found=1} END {exit !found}'; }
online() { pg_lsclusters -h | awk -v v="$VERSION" -v n="$1" '$1 == v && $2 == n && $4 ~ /online/ {found=1} END {exit !found}'; }
datadir() { pg_lsclusters -h | awk -v v="$VERSION" -v n="$1" '$1 == v && $2 == n {print $6}'; }

wait_ready() {
    for _ in $(seq 1 120); do
        if pg_isready -q -h 127.0.0.1 -p "$(port_of "$1")"; then return 0; fi
        sleep 0.25
    done
    echo "pg-replica: $1 did not start" >&2
    return 1
}

up() {
    local mode=sync
    [ "${1:-}" = "--async" ] && mode=async
    down >/dev/null 2>&1 || true
    pg_createcluster "$VERSION" "$PRIMARY" -p "$PORT" -- --auth=trust >/dev/null
    # Replication from loopback is trusted by initdb's own pg_hba.conf.
    cat >> "/etc/postgresql/$VERSION/$PRIMARY/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
wal_level = replica
max_wal_senders = 5
wal_keep_size = '256MB'
CONF
    ctl "$PRIMARY" start
    wait_ready "$PRIMARY"
    sql "$PRIMARY" "CREATE DATABASE test" >/dev/null

    pg_createcluster "$VERSION" "$STANDBY" -p $((PORT + 1)) -- --auth=trust >/dev/null
    local dir
    dir=$(datadir "$STANDBY")
    # pg_basebackup fills an empty directory: the new cluster's own files go.
    find "$dir" -mindepth 1 -delete
    runuser -u postgres -- pg_basebackup -h 127.0.0.1 -p "$PORT" -U postgres -D "$dir" -X stream -R -c fast
    echo "primary_conninfo = 'host=127.0.0.1 port=$PORT user=postgres application_name=$STANDBY'" \
        >> "$dir/postgresql.auto.conf"
    echo "listen_addresses = '127.0.0.1'" >> "/etc/postgresql/$VERSION/$STANDBY/postgresql.conf"
    ctl "$STANDBY" start
    wait_ready "$STANDBY"
    # Synchronous only once the standby is there: before, every commit would wait.
    if [ "$mode" = sync ]; then
        sql "$PRIMARY" "ALTER SYSTEM SET synchronous_standby_names = '$STANDBY'" >/dev/null
        sql "$PRIMARY" "SELECT pg_reload_conf()" >/dev/null
    fi
    for _ in $(seq 1 120); do
        if [ "$(sql "$PRIMARY" "SELECT sync_state FROM pg_stat_replication WHERE application_name = '$STANDBY'")" = "$mode" ]; then
            status
            return 0
        fi
        sleep 0.25
    done
    echo "pg-replica: the standby did not reach $mode replication" >&2
    exit 1
}

status() {
    local hosts="" any=""
    for c in "$PRIMARY" "$STANDBY"; do
        exists "$c" || continue
        hosts="${hosts:+$hosts,}127.0.0.1:$(port_of "$c")"
        if online "$c"; then
            any=1
            local role
            role=$(sql "$c" "SELECT CASE WHEN pg_is_in_recovery() THEN 'standby' ELSE 'primary' END" 2>/dev/null || echo down)
            echo "pg-replica: $c on port $(port_of "$c"): $role" >&2
        else
            echo "pg-replica: $c on port $(port_of "$c"): down" >&2
        fi
    done
    [ -n "$any" ] || { echo "pg-replica: not running" >&2; exit 1; }
    echo "postgres://postgres@$hosts/test?target_session_attrs=read-write"
}

failover() {
    ctl "$PRIMARY" stop -m immediate
    ctl "$STANDBY" promote
    for _ in $(seq 1 120); do
        if [ "$(sql "$STANDBY" "SELECT pg_is_in_recovery()")" = f ]; then return 0; fi
        sleep 0.1
    done
    echo "pg-replica: the standby was not promoted" >&2
    exit 1
}

down() {
    for c in "$STANDBY" "$PRIMARY"; do
        if exists "$c"; then pg_dropcluster --stop "$VERSION" "$c"; fi
    done
}

case "${1:-}" in
    up) up "${2:-}" ;;
    status) status ;;
    failover) failover ;;
    down) down ;;
    *) echo "usage: $0 up [--async] | status | failover | down" >&2; exit 2 ;;
esac
