#!/usr/bin/env bash
# The driver's own ceiling: open-loop TPC-C against the null engine (executes
# nothing), one driver thread. For each rate prints the achieved rate, the
# dispatcher's lateness and the measurement checks; copy the figures into
# bench/RESULTS.md with the date.
#
#   bench/null.sh                      200k, 500k and 1M per second, 30 s each
#   RATES="500000" DURATION=60s bench/null.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RATES=${RATES:-"200000 500000 1000000"}
DURATION=${DURATION:-30s}
cargo build --release --quiet
bin=target/release/txbench

echo "== machine: $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ)"
for rate in $RATES; do
    echo "== null engine, poisson arrivals at $rate/s, $DURATION"
    "$bin" tpcc run --db null: --rate "$rate/s" --duration "$DURATION" --warmup 2s \
        --no-results -q | grep -E "throughput|open loop|PASS|WARN|FAIL|verdict|CPU"
done
