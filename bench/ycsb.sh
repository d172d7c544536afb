#!/usr/bin/env bash
# YCSB A (50/50 read/update) and C (read only) at 1M records on in-memory
# SQLite, file SQLite, the local PostgreSQL and the local Redis: closed-loop
# throughput and p99 per operation, the client's and the database server's
# CPU per 1,000 operations, and the capacity `sweep` finds under an objective
# (open loop, every operation's p99 within it and 90% of the offered load done).
#
#   RECORDS=1000000 DURATION=20s STEP_DURATION=5s SLO='p99<=5ms' bench/ycsb.sh
#   SERVERS=0 bench/ycsb.sh      # SQLite only
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=${RECORDS:-1000000}
DURATION=${DURATION:-20s}
WARMUP=${WARMUP:-5s}
STEP_DURATION=${STEP_DURATION:-5s}
SLO=${SLO:-p99<=5ms}
TERMINALS=${TERMINALS:-8}
SERVERS=${SERVERS:-1}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
REDIS=${REDIS:-redis://127.0.0.1:6379/12}
cargo build --release --quiet
bin=$(pwd)/target/release/txbench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Each sweep's steps (summary, intervals, report) are kept for a later look.
SWEEPS=${SWEEPS:-/tmp/txbench-ycsb-sweeps}
mkdir -p "$SWEEPS"
secs() { echo "${1%s}"; }

# CPU seconds (user + system) of every process named $1, reaped children included.
tree_cpu() { bench/process_cpu.py "$1"; }
redis_cpu() {
    redis-cli -u "$REDIS" INFO cpu | awk -F: '/^used_cpu_(user|sys):/ {s += $2} END {print s}'
}
# The server's CPU seconds so far, per engine label.
server_cpu() {
    case $1 in
    postgres) tree_cpu postgres ;;
    redis) redis_cpu ;;
    *) echo 0 ;;
    esac
}

# One closed-loop run: throughput, each operation's p99, and CPU per 1,000
# operations (warm-up included: the client and the server worked then too).
closed() {
    local label=$1 server=$2 workload=$3; shift 3
    local before after
    before=$(server_cpu "$server")
    /usr/bin/time -f "%U %S" -o "$out/time" "$bin" ycsb run "$@" --workload "$workload" \
        --records "$RECORDS" --terminals "$TERMINALS" --duration "$DURATION" --warmup "$WARMUP" \
        --no-results >"$out/run" 2>&1
    after=$(server_cpu "$server")
    local ops p99s client server_per
    ops=$(awk '$1 == "throughput" {gsub(",", "", $2); print $2; exit}' "$out/run")
    p99s=$(awk '$1 ~ /^(Read|Update)$/ && $2 ~ /^[0-9,]+$/ && NF >= 12 {printf "%s p99 %s ms, ", $1, $10}' "$out/run")
    local total=$(( ${ops%.*} * ($(secs "$DURATION") + $(secs "$WARMUP")) ))
    client=$(awk -v t="$(cat "$out/time")" -v n="$total" 'BEGIN {split(t, a, " "); printf "%.3f", (a[1] + a[2]) * 1000 / n}')
    if [ "$server" = embedded ]; then
        server_per="embedded (in the client's)"
    else
        server_per=$(awk -v a="$after" -v b="$before" -v n="$total" 'BEGIN {printf "%.3f s", (a - b) * 1000 / n}')
    fi
    echo "$label YCSB ${workload^^} closed loop, $TERMINALS terminals: $ops ops/s, ${p99s}client CPU $client s per 1,000 ops, server CPU $server_per"
    echo "$ops"
}

# The capacity under the objective: open loop from a tenth of the closed-loop
# throughput to 1.2 times it, in tenths.
capacity() {
    local label=$1 workload=$2 ops=$3; shift 3
    local step=$(( ${ops%.*} / 10 / 100 * 100 ))
    [ "$step" -ge 100 ] || step=100
    "$bin" sweep ycsb "$@" --workload "$workload" --records "$RECORDS" \
        --rates "$step..$(( step * 12 ))" --step "$step" --step-duration "$STEP_DURATION" \
        --warmup 2s --slo "$SLO" --results "$SWEEPS" >"$out/sweep" 2>&1 || true
    echo "$label YCSB ${workload^^} $(grep -m1 'capacity' "$out/sweep" || tail -1 "$out/sweep") (steps of $step/s; $(grep -m1 '^results:' "$out/sweep"))"
}

# Closed loop, then the sweep, for A and C on one engine.
engine() {
    local label=$1 server=$2; shift 2
    for w in a c; do
        local result ops
        result=$(closed "$label" "$server" "$w" "$@")
        echo "$result" | head -1
        ops=$(echo "$result" | tail -1)
        capacity "$label" "$w" "$ops" "$@"
    done
}

echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg), $RECORDS records, objective $SLO"
# In-memory SQLite is loaded by each process; the others load once.
engine "sqlite::memory: (1 connection)" embedded --db sqlite::memory:
db=/tmp/txbench-ycsb-bench.db
rm -f "$db"*
"$bin" ycsb load --db "sqlite:$db" --records "$RECORDS" | grep loaded
engine "sqlite file (1 connection)" embedded --db "sqlite:$db"
rm -f "$db"*
if [ "$SERVERS" = 1 ]; then
    psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_ycsb" -c "CREATE DATABASE txbench_ycsb"
    "$bin" ycsb load --db "$PG/txbench_ycsb" --records "$RECORDS" --threads 2 | grep loaded
    engine "postgres $(psql -tAc 'SHOW server_version' "$PG/postgres")" postgres --db "$PG/txbench_ycsb?sslmode=disable"
    psql "$PG/postgres" -qc "DROP DATABASE txbench_ycsb"
    "$bin" ycsb load --db "$REDIS" --records "$RECORDS" --drop | grep loaded
    engine "redis $(redis-cli -u "$REDIS" INFO server | awk -F: '/^redis_version/ {print $2}' | tr -d '\r')" redis --db "$REDIS"
    "$bin" ycsb clean --db "$REDIS" >/dev/null
fi
echo "== done $(date -u +%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
