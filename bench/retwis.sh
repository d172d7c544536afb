#!/usr/bin/env bash
# Retwis: committed throughput and abort rate against the key skew (Zipf 0,
# 0.75, 0.99) with 8 terminals, on in-memory SQLite, the local PostgreSQL (its
# default read committed, and repeatable read) and the local Redis.
#
#   DURATION=20s KEYS=1000000 bench/retwis.sh
#   SERVERS=0 bench/retwis.sh        # SQLite only
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-20s}
KEYS=${KEYS:-1000000}
SERVERS=${SERVERS:-1}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
REDIS=${REDIS:-redis://127.0.0.1:6379/12}
cargo build --release --quiet
bin=target/release/txbench

# One run per skew: committed txn/s, abort rate, retries per commit, p99 of
# Get-Timeline and Post-Tweet, and the commit operation's p50.
sweep_skew() {
    local label=$1; shift
    for zipf in 0 0.75 0.99; do
        out=$("$bin" retwis run "$@" --zipf "$zipf" --terminals 8 --max-retries 100 \
            --duration "$DURATION" --warmup 5s --no-results -q 2>&1)
        tps=$(echo "$out" | awk '/committed txn\/s/ {print $2}')
        abort=$(echo "$out" | awk '/abort rate/ {print $3}')
        retries=$(echo "$out" | awk '$1 == "retries" && $3 == "per" {print $2}')
        p99_tl=$(echo "$out" | awk '$1 == "Get-Timeline" && NF >= 12 {print $7; exit}')
        p99_pt=$(echo "$out" | awk '$1 == "Post-Tweet" && NF >= 12 {print $7; exit}')
        commit=$(echo "$out" | awk '$1 == "commit" {print $4; exit}')
        echo "$label zipf $zipf: $tps committed txn/s, abort rate $abort%, retries/commit $retries, p99 ms Get-Timeline $p99_tl Post-Tweet $p99_pt, commit p50 ${commit:-?} ms"
    done
}

echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), $KEYS keys, 8 terminals, $DURATION per run"
db=sqlite:/tmp/txbench-retwis-bench.db
rm -f /tmp/txbench-retwis-bench.db*
# In-memory SQLite would be loaded by each run; a file loads once.
"$bin" retwis load --db "$db" --keys "$KEYS" | grep loaded
sweep_skew "sqlite file (1 connection)" --db "$db"
rm -f /tmp/txbench-retwis-bench.db*

if [ "$SERVERS" = 1 ]; then
    psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_retwis" -c "CREATE DATABASE txbench_retwis"
    "$bin" retwis load --db "$PG/txbench_retwis" --keys "$KEYS" --threads 2 | grep loaded
    sweep_skew "postgres read committed" --db "$PG/txbench_retwis"
    sweep_skew "postgres repeatable read" --db "$PG/txbench_retwis" --isolation repeatable-read
    psql "$PG/postgres" -qc "DROP DATABASE txbench_retwis"

    "$bin" retwis load --db "$REDIS" --keys "$KEYS" --drop | grep loaded
    sweep_skew "redis (WATCH/MULTI/EXEC)" --db "$REDIS"
    "$bin" retwis clean --db "$REDIS" >/dev/null
fi
