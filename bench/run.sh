#!/usr/bin/env bash
# txbench's own benchmark: load times and TPC-C throughput on embedded SQLite,
# and the driver's share of the CPU. Prints what it measures; copy the figures
# into bench/RESULTS.md with the date.
#
#   bench/run.sh            all of it (about 2 minutes)
#   DURATION=20s bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-60s}
cargo build --release --quiet
bin=target/release/txbench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== machine: $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "== load (time from connect to the last index, as txbench reports it)"
for w in 1 4; do
    "$bin" tpcc load --db sqlite::memory: --warehouses "$w" | sed "s/^/memory  /"
    rm -f "$work/t.db"*
    "$bin" tpcc load --db "sqlite:$work/t.db" --warehouses "$w" | sed "s/^/file    /"
done

echo "== run: 1 warehouse, in memory, --wait none, one connection, $DURATION"
"$bin" tpcc --db sqlite::memory: --duration "$DURATION" --warmup 5s --wait none \
    --connections 1 --no-results -q | grep -E "tpmC|throughput|CPU|New-Order |Payment "

if command -v perf >/dev/null && command -v python3 >/dev/null; then
    echo "== driver share: perf samples with and without a SQLite frame on the stack (20 s run)"
    lib=$(ls target/release/build/libsqlite3-sys-*/out/libsqlite3.a | head -1)
    nm --defined-only "$lib" | awk '$2 ~ /[tT]/ {print $3}' | sort -u > "$work/sqlite.syms"
    perf record -q --call-graph dwarf,16384 -F 299 -o "$work/perf.data" \
        "$bin" tpcc --duration 20s --warmup 2s --no-results -q 2>/dev/null | grep -E "throughput"
    perf script -i "$work/perf.data" -F comm,tid,ip,sym 2>/dev/null \
        | python3 bench/driver_share.py "$work/sqlite.syms"
else
    echo "== driver share: skipped (needs perf and python3)"
fi
