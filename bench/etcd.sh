#!/usr/bin/env bash
# Retwis on etcd: a three-member Raft cluster and a single member, both on
# this machine's loopback (scripts/etcd-cluster.sh), at Zipf 0, 0.75 and 0.99
# with 8 and 32 terminals, closed loop: committed transactions a second, the
# abort rate, p50/p99 of each operation (get, commit) and of the whole
# transaction, and the client's and the etcd members' CPU per 1,000 committed
# transactions; then the unavailability when the cluster's leader is killed
# mid-run (the run's own --fault-at/--fault-cmd).
#
#   KEYS=1000000 DURATION=20s WARMUP=5s bench/etcd.sh
#
# Needs Debian's etcd-server (and protoc to build txbench with --features etcd).
set -euo pipefail
cd "$(dirname "$0")/.."
KEYS=${KEYS:-1000000}
DURATION=${DURATION:-20s}
WARMUP=${WARMUP:-5s}
cargo build --release --quiet --features etcd
bin=$(pwd)/target/release/txbench
out=$(mktemp -d)
THREE=(env ETCD_DIR=/tmp/txbench-etcd-bench3 ETCD_PORTS="24379 24389 24399" scripts/etcd-cluster.sh)
ONE=(env ETCD_DIR=/tmp/txbench-etcd-bench1 ETCD_PORTS="24479" scripts/etcd-cluster.sh)
trap '"${THREE[@]}" down; "${ONE[@]}" down; rm -rf "$out"' EXIT

# CPU seconds (user + system) of every etcd process.
etcd_cpu() { bench/process_cpu.py etcd; }

# One run's line from its summary.json: the figures of the table.
row() {
    python3 - "$@" <<'PY'
import json, sys
label, summary, server_cpu = sys.argv[1], json.load(open(sys.argv[2])), float(sys.argv[3])
m = {x["name"]: x["value"] for x in summary["metrics"]}
ops = {o["name"]: o["latency_ms"] for o in summary["operations"]}
committed = sum(t["committed"] for t in summary["transactions"])
# CPU over the warm-up and the window, committed counted over the window:
# scaled to the window's share of the run.
window = summary["measured_secs"]
whole = window + summary["settings"]["warmup_secs"]
per_1000 = lambda secs: secs * (window / whole) * 1000 / committed
total = summary["total_latency_ms"]
print(f"| {label} | {m['throughput']:,.0f} | {m['abort rate']:.1f}% "
      f"| {ops['get']['p50']:.2f} / {ops['get']['p99']:.2f} "
      f"| {ops['commit']['p50']:.2f} / {ops['commit']['p99']:.2f} "
      f"| {total['p50']:.2f} / {total['p99']:.2f} "
      f"| {per_1000(summary['cpu']['process_secs']):.3f} | {per_1000(server_cpu):.3f} |")
PY
}

run() {
    local label=$1 db=$2 zipf=$3 terminals=$4 before after
    rm -rf "$out/results"
    before=$(etcd_cpu)
    "$bin" retwis run --db "$db" --zipf "$zipf" -t "$terminals" -d "$DURATION" --warmup "$WARMUP" \
        -q --results "$out/results" >"$out/run" 2>&1 || true
    after=$(etcd_cpu)
    row "$label, Zipf $zipf, $terminals terminals" "$(ls -d "$out"/results/*/)summary.json" \
        "$(awk -v a="$after" -v b="$before" 'BEGIN {print a - b}')"
}

echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg), $KEYS keys, $DURATION runs after $WARMUP warm-up"
"${THREE[@]}" up
"${ONE[@]}" up
three=etcd://127.0.0.1:24379,127.0.0.1:24389,127.0.0.1:24399
one=etcd://127.0.0.1:24479
"$bin" retwis load --db "$three" --keys "$KEYS" | grep loaded
"$bin" retwis load --db "$one" --keys "$KEYS" | grep loaded
echo "| cluster, skew, terminals | committed txn/s | abort rate | get p50 / p99 ms | commit p50 / p99 ms | transaction p50 / p99 ms | client CPU s / 1,000 txn | etcd CPU s / 1,000 txn |"
echo "|---|---|---|---|---|---|---|---|"
for zipf in 0 0.75 0.99; do
    for terminals in 8 32; do
        run "3 members" "$three" "$zipf" "$terminals"
        run "1 member" "$one" "$zipf" "$terminals"
    done
done
"${ONE[@]}" down

# The leader killed 10 s into a 30 s run; its figures from the fault's impact.
rm -rf "$out/results"
"$bin" retwis run --db "$three" --zipf 0.75 -t 32 -d 30s --warmup 5s -q --results "$out/results" \
    --fault-at 10s --fault-cmd "ETCD_DIR=/tmp/txbench-etcd-bench3 ETCD_PORTS='24379 24389 24399' scripts/etcd-cluster.sh kill-leader" \
    >"$out/run" 2>&1 || true
python3 - "$(ls -d "$out"/results/*/)summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
f = s["faults"][0]; i = f["impact"]
errors = ", ".join(f"{k} {v}" for k, v in i["errors"].items())
print(f"leader killed at {f['at_s']} s: baseline {i['baseline_per_s']:.0f} txn/s; unavailable {i['unavailable_s']:.2f} s; "
      f"first answer {i['first_answer_s']:.2f} s after; 90% of the baseline again after {i['recovered_90_s']} s; "
      f"errors in the fault's seconds: {errors}; reconnections {i['reconnections']}; verdict {s['verdict']}")
for sec in i["seconds"]:
    print(f"  {sec['end_s']:+6.1f} s: {sec['per_s']:6.0f} txn/s, failed {sec['failed']}, p99 {sec['p99_ms']} ms")
PY
echo "== done $(date -u +%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
