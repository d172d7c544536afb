#!/usr/bin/env bash
# The transaction server against the same engine embedded in the client: the
# capacity `sweep` finds (TPC-C, 1 warehouse, in-memory SQLite, --wait none,
# open loop) under an objective, for `serve --workers 1` and for embedded SQLite.
#
#   STEP_DURATION=10s SLO='p99<=10ms' bench/serve.sh
set -euo pipefail
cd "$(dirname "$0")/.."
STEP_DURATION=${STEP_DURATION:-10s}
SLO=${SLO:-p99<=10ms}
RATES=${RATES:-2000..30000}
STEP=${STEP:-2000}
cargo build --release --quiet
bin=target/release/txbench
out=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$out"' EXIT

sweep() {
    "$bin" sweep tpcc "$@" --rates "$RATES" --step "$STEP" --step-duration "$STEP_DURATION" \
        --warmup 3s --slo "$SLO" --refine 3 --results "$out" | tail -2 | head -1
}

echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), objective $SLO, steps of $STEP_DURATION"
echo "embedded (sqlite::memory:, 1 connection): $(sweep --db sqlite::memory:)"

"$bin" serve --db sqlite::memory: --workload tpcc --workers 1 --listen 127.0.0.1:7077 >"$out/serve.log" &
server=$!
until grep -q "serving" "$out/serve.log"; do sleep 0.2; done
echo "serve --workers 1 (txbench://, 10 sessions): $(sweep --db txbench://127.0.0.1:7077 --connections 10)"
kill -TERM $server
wait $server
tail -1 "$out/serve.log"
