#!/usr/bin/env bash
# The open-loop dispatcher's own cost and punctuality: TPC-C inputs against the
# null engine (it executes nothing) at several rates, one driver thread. For
# each rate prints the dispatcher's lateness (p50, p99, max, us), the process
# CPU per arrival and, where the build reports it, the dispatcher threads' CPU
# per arrival, and the Anderson-Darling statistic of its send gaps against the
# exponential (A2*; under 1.957 at the 1% level: Poisson sends, no bunching).
# With BEFORE set to another build's binary, the two run in turn
# (before, after, before, ...) so that the machine's drift hits both alike.
# PACINGS lists the --pacing modes this build runs in turn (default auto).
#
#   bench/dispatch.sh                                   this build, 200/s .. 1M/s
#   BEFORE=/path/to/old/txbench ROUNDS=3 bench/dispatch.sh
#   RATES="200 10000" DURATION=20s PACINGS="sleep spin" bench/dispatch.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RATES=${RATES:-"200 10000 500000 1000000"}
DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-2}
PACINGS=${PACINGS:-auto}
cargo build --release --quiet
after=target/release/txbench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== machine: $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
run() { # label binary rate [flags...]
    local label=$1 binary=$2 rate=$3
    shift 3
    local dir="$out/$label-$rate-$RANDOM"
    "$binary" tpcc run --db null: --rate "$rate/s" --duration "$DURATION" --warmup 1s \
        --results "$dir" -q "$@" >/dev/null 2>&1 || true
    python3 - "$dir" "$label" "$rate" <<'EOF'
import glob, json, sys
d, label, rate = sys.argv[1:4]
s = json.load(open(glob.glob(d + "/*/summary.json")[0]))
o = s["open_loop"]
arrivals = float(rate) * (s["measured_secs"] + float(s["parameters"]["warmup_secs"]))
lat = o["lateness_us"]
per = o.get("dispatcher_cpu_us_per_arrival")
ad = o.get("send_gaps_anderson_darling")
print(f"{label:12} {float(rate):>9,.0f}/s  achieved {o['achieved_rate']:>11,.0f}/s  "
      f"lateness p50 {lat['p50']:>6.0f} p99 {lat['p99']:>7.0f} max {lat['max']:>7.0f} us  "
      f"process CPU {1e6 * s['cpu']['process_secs'] / arrivals:>7.2f} us/arrival  "
      f"dispatcher {'-' if per is None else f'{per:.2f}':>7} us/arrival  "
      f"send gaps A2* {'-' if ad is None else f'{ad:.3f}'}")
EOF
}
for rate in $RATES; do
    for _ in $(seq "$ROUNDS"); do
        [ -n "${BEFORE:-}" ] && run before "$BEFORE" "$rate"
        for pacing in $PACINGS; do
            run "after/$pacing" "$after" "$rate" --pacing "$pacing"
        done
    done
done
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
