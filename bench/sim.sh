#!/usr/bin/env bash
# txbench against a server of known truth (the sim: engine): M/D/1 and M/M/1
# queues at several utilisations, open loop, each run's mean, p50 and p99
# latency (all types together) next to queueing theory's. M/M/1 from its
# closed form (sojourn time exponential with mean 1/(mu - lambda)); M/D/1's
# mean from Pollaczek-Khinchine and its quantiles from Lindley's recursion
# over 2,000,000 simulated arrivals. Then `txbench selftest --rate 1000/s`.
#
#   bench/sim.sh                       30 s per case
#   DURATION=10s bench/sim.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-30s}
cargo build --release --quiet
bin=target/release/txbench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
case_run() { # label service rate
    local dir="$out/$2-$3"
    "$bin" tatp run --db "sim:?service=$2&workers=1" --subscribers 1000 --rate "$3/s" \
        --duration "$DURATION" --warmup 2s --results "$dir" -q >/dev/null 2>&1 || true
    python3 - "$dir" "$1" "$2" "$3" <<'PY'
import glob, json, math, random, sys
d, label, service, rate = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
s = json.load(open(glob.glob(d + "/*/summary.json")[0]))
types = s["transactions"]
n = sum(t["latency_ms"]["samples"] for t in types)
mean = sum(t["latency_ms"]["mean"] * t["latency_ms"]["samples"] for t in types) / n
# All types share one server and one latency distribution: the type with the
# most samples stands for the percentiles.
big = max(types, key=lambda t: t["latency_ms"]["samples"])["latency_ms"]
kind, value = service.split(":")
ms = float(value.rstrip("ms"))
lam, d = rate, ms / 1000.0
if kind == "exp":
    m = 1.0 / (1.0 / d - lam)
    theory = (m, m * math.log(2), m * math.log(100))
else:
    random.seed(99)
    w, lat = 0.0, []
    for _ in range(2_000_000):
        lat.append(w + d)
        w = max(0.0, w + d - random.expovariate(lam))
    lat.sort()
    theory = (d + lam * d * d / (2 * (1 - lam * d)), lat[len(lat) // 2], lat[len(lat) * 99 // 100])
t = [1000 * x for x in theory]
print(f"{label:14} rho {lam * d:.1f}  mean {mean:7.3f} (theory {t[0]:7.3f})  "
      f"p50 {big['p50']:7.3f} ({t[1]:7.3f})  p99 {big['p99']:7.3f} ({t[2]:7.3f}) ms  "
      f"{n} measured; {s['verdict']}")
PY
}
case_run "M/D/1 4ms" fixed:4ms 125
case_run "M/D/1 4ms" fixed:4ms 200
case_run "M/M/1 2ms" exp:2ms 250
case_run "M/M/1 2ms" exp:2ms 400
# The self-test's eleven cases (verdicts and theory) and its noise floor, as
# its test runs it; on an idle machine every case holds (exit 0).
"$bin" selftest --rate 1000/s && echo "selftest: every case held" || echo "selftest: exit $?"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
