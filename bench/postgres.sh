#!/usr/bin/env bash
# TPC-C on the local PostgreSQL: load times with 2 threads, tpmC with --wait none
# at 1 and 4 warehouses with 4 and 16 terminals, and txbench's own CPU per 1,000
# transactions (user + sys of the run command, from /usr/bin/time).
#
#   PG=postgres://postgres@127.0.0.1:5432 DURATION=60s bench/postgres.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${PG:-postgres://postgres@127.0.0.1:5432}
DURATION=${DURATION:-60s}
cargo build --release --quiet
bin=target/release/txbench
db="$PG/txbench_bench?sslmode=disable"
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_bench WITH (FORCE)" -c "CREATE DATABASE txbench_bench"
echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), $(psql "$PG/postgres" -Atc 'SHOW server_version')"
for w in 1 4; do
    "$bin" tpcc load --db "$db" --warehouses "$w" --threads 2 --drop
    for t in 4 16; do
        out=$( { /usr/bin/time -f "cpu %U %S" "$bin" tpcc run --db "$db" --duration "$DURATION" --warmup 5s \
            --terminals "$t" --wait none --no-results -q; } 2>&1 )
        tpmc=$(echo "$out" | awk '/tpmC/ {print $2}')
        tps=$(echo "$out" | awk '/throughput/ {print $2}' | tr -d ,)
        read -r user sys <<<"$(echo "$out" | awk '/^cpu/ {print $2, $3}')"
        secs=$(echo "$out" | awk '/s measured/ {for (i=1;i<=NF;i++) if ($i=="s") print $(i-1)}' | head -1)
        per1000=$(python3 -c "print(f'{($user + $sys) / ($tps * ($secs + 5)) * 1000:.3f}')")
        echo "warehouses $w terminals $t: tpmC $tpmc, $tps txn/s, client CPU ${user}s user + ${sys}s sys = $per1000 s per 1000 txn"
    done
done
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_bench WITH (FORCE)"
