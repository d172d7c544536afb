#!/usr/bin/env bash
# TATP: load time and MQTh on in-memory SQLite (100,000 subscribers, one
# connection, 10 terminals), and on the local PostgreSQL and MariaDB.
#
#   DURATION=30s bench/tatp.sh
#   SERVERS=0 bench/tatp.sh        # SQLite only
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-30s}
SERVERS=${SERVERS:-1}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
MYSQL=${MYSQL:-mysql://root@127.0.0.1:3306}
cargo build --release --quiet
bin=target/release/txbench

# One run: prints the headline and the client's CPU per 1,000 transactions.
run() {
    local label=$1; shift
    out=$( { /usr/bin/time -f "cpu %U %S" "$bin" tatp "$@" --duration "$DURATION" --warmup 5s \
        --no-results -q; } 2>&1 )
    echo "$out" | grep -E "^loaded" || true
    mqth=$(echo "$out" | awk '/MQTh/ {print $2}')
    tps=$(echo "$out" | awk '/throughput/ {print $2}' | tr -d ,)
    read -r user sys <<<"$(echo "$out" | awk '/^cpu/ {print $2, $3}')"
    secs=${DURATION%s}
    per1000=$(python3 -c "print(f'{($user + $sys) / ($tps * ($secs + 5)) * 1000:.3f}')")
    echo "$label: MQTh $mqth, $tps txn/s, client CPU $per1000 s per 1000 txn"
}

echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
run "sqlite memory, 100,000 subscribers, 10 terminals, 1 connection" --db sqlite::memory:

if [ "$SERVERS" = 1 ]; then
    psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_tatp" -c "CREATE DATABASE txbench_tatp"
    "$bin" tatp load --db "$PG/txbench_tatp" --threads 2
    run "postgres, 10 terminals" run --db "$PG/txbench_tatp"
    psql "$PG/postgres" -qc "DROP DATABASE txbench_tatp"

    hostport=${MYSQL#mysql://*@}
    admin() { mariadb -h "${hostport%:*}" -P "${hostport#*:}" -uroot -e "$1"; }
    admin "DROP DATABASE IF EXISTS txbench_tatp; CREATE DATABASE txbench_tatp"
    "$bin" tatp load --db "$MYSQL/txbench_tatp" --threads 2
    run "mariadb, 10 terminals" run --db "$MYSQL/txbench_tatp"
    admin "DROP DATABASE txbench_tatp"
fi
