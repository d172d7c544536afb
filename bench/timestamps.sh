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
# Each pair (without, with) runs REPS times in turn, and the table gives
# each figure's median over them.
#
# Environment: RATES ("1000 4000 8000"), DURATION (20s), WARMUP (3s), REPS
# (3), PORT (7078), OUT (a new temporary directory), TXBENCH (target/release/txbench).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TXBENCH:-target/release/txbench}
RATES=${RATES:-"1000 4000 8000"}
DURATION=${DURATION:-20s}
WARMUP=${WARMUP:-3s}
REPS=${REPS:-3}
PORT=${PORT:-7078}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"

taskset -c 1 "$BIN" serve --db sqlite::memory: --workload tatp --subscribers 10000 \
    --listen "127.0.0.1:$PORT" >"$OUT/serve.log" 2>&1 &
SERVER=$!
HOG=
trap 'kill $SERVER ${HOG:-} 2>/dev/null || true' EXIT
sleep 3
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

for load in idle busy; do
    for rate in $RATES; do
      for rep in $(seq "$REPS"); do
        for stamps in client kernel; do
            if [ "$load" = busy ]; then
                taskset -c 0 sh -c 'while :; do :; done' &
                HOG=$!
            fi
            taskset -c 0 "$BIN" tatp run --db "txbench://127.0.0.1:$PORT" \
                --rate "$rate" --duration "$DURATION" --warmup "$WARMUP" \
                --timestamps "$stamps" --results "$OUT/$load-$rate-$stamps-$rep" -q \
                >/dev/null
            if [ -n "$HOG" ]; then kill "$HOG"; wait "$HOG" 2>/dev/null || true; HOG=; fi
        done
      done
    done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$OUT" <<'PY'
import glob, json, statistics, sys
out = sys.argv[1]
runs = {}
for path in glob.glob(f"{out}/*/*/summary.json"):
    load, rate, stamps, _rep = path.split("/")[-3].split("-")
    runs.setdefault((load, int(rate), stamps), []).append(json.load(open(path)))
def med(values):
    return statistics.median(values)
print("| client | rate/s | timestamps | runs | achieved/s | latency p50 / p99 ms | wire p50 / p99 ms | client's share p50 / p99 ms | client CPU us/txn |")
print("|---|---|---|---|---|---|---|---|---|")
for (load, rate, stamps) in sorted(runs, key=lambda k: (k[0] != "idle", k[1], k[2])):
    ss = runs[(load, rate, stamps)]
    lat = lambda p: med([s["total_latency_ms"][p] for s in ss])
    # The process's CPU covers the warm-up too: per transaction of the whole run.
    cpu = med([s["cpu"]["process_secs"] * 1e6 / max(s["open_loop"]["achieved_rate"] * (s["measured_secs"] + s["settings"]["warmup_secs"]), 1) for s in ss])
    achieved = med([s["open_loop"]["achieved_rate"] for s in ss])
    if stamps == "kernel":
        wire = lambda p: med([s["wire"]["total_wire_ms"][p] for s in ss])
        client = lambda p: med([s["wire"][f"client_{p}_ms"] for s in ss])
        w = f"{wire('p50'):.3f} / {wire('p99'):.3f}"
        c = f"{client('p50'):.3f} / {client('p99'):.3f}"
    else:
        w = c = "-"
    print(f"| {load} | {rate:,} | {stamps} | {len(ss)} | {achieved:,.0f} | {lat('p50'):.3f} / {lat('p99'):.3f} | {w} | {c} | {cpu:.1f} |")
PY
