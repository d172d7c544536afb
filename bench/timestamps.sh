#!/usr/bin/env bash
# The latency the client measures against the time on the wire from the
# kernel's timestamps (--timestamps kernel), at several open-loop rates, on
# an idle client core and on one shared with a CPU hog; and what stamping
# costs the client in CPU per transaction (the same runs without it,
# alternated). The server (`txbench serve`, TATP on in-memory SQLite) has a
# core of its own, the client and the hog share the other.
#
#   cargo build --release && bench/timestamps.sh
#
# Environment: RATES ("1000 4000 8000"), DURATION (20s), WARMUP (3s), PORT
# (7078), OUT (bench/out/timestamps), TXBENCH (target/release/txbench).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TXBENCH:-target/release/txbench}
RATES=${RATES:-"1000 4000 8000"}
DURATION=${DURATION:-20s}
WARMUP=${WARMUP:-3s}
PORT=${PORT:-7078}
OUT=${OUT:-bench/out/timestamps}
rm -rf "$OUT" && mkdir -p "$OUT"

taskset -c 1 "$BIN" serve --db sqlite::memory: --workload tatp --subscribers 10000 \
    --listen "127.0.0.1:$PORT" >"$OUT/serve.log" 2>&1 &
SERVER=$!
HOG=
trap 'kill $SERVER ${HOG:-} 2>/dev/null || true' EXIT
sleep 3
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

for load in idle busy; do
    for rate in $RATES; do
        for stamps in client kernel; do
            if [ "$load" = busy ]; then
                taskset -c 0 sh -c 'while :; do :; done' &
                HOG=$!
            fi
            taskset -c 0 "$BIN" tatp run --db "txbench://127.0.0.1:$PORT" \
                --rate "$rate" --duration "$DURATION" --warmup "$WARMUP" \
                --timestamps "$stamps" --results "$OUT/$load-$rate-$stamps" -q \
                >/dev/null
            if [ -n "$HOG" ]; then kill "$HOG"; wait "$HOG" 2>/dev/null || true; HOG=; fi
        done
    done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
print("| client | rate/s | timestamps | achieved/s | latency p50 / p99 ms | wire p50 / p99 ms | client's share p50 / p99 ms | client CPU us/txn |")
print("|---|---|---|---|---|---|---|---|")
for path in sorted(glob.glob(f"{out}/*/*/summary.json"), key=lambda p: (p.split('/')[-3].split('-')[0], int(p.split('/')[-3].split('-')[1]), p)):
    load, rate, stamps = path.split("/")[-3].split("-")
    s = json.load(open(path))
    lat = s["total_latency_ms"]
    # The process's CPU covers the warm-up too: per transaction of the whole run.
    whole = s["open_loop"]["achieved_rate"] * (s["measured_secs"] + s["settings"]["warmup_secs"])
    cpu = s["cpu"]["process_secs"] * 1e6 / max(whole, 1)
    w = s.get("wire")
    wire = f'{w["total_wire_ms"]["p50"]:.3f} / {w["total_wire_ms"]["p99"]:.3f}' if w else "-"
    share = f'{w["client_p50_ms"]:.3f} / {w["client_p99_ms"]:.3f}' if w else "-"
    achieved = s["open_loop"]["achieved_rate"]
    print(f"| {load} | {rate} | {stamps} | {achieved:,.0f} | {lat['p50']:.3f} / {lat['p99']:.3f} | {wire} | {share} | {cpu:.1f} |")
PY
