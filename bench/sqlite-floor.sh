#!/usr/bin/env bash
# txbench on embedded SQLite against its floor: the same statements, replayed
# through rusqlite alone on the same data (examples/sqlite_floor.rs), alternated
# with `txbench tpcc` in memory on one connection (--wait none). Per pair: the
# floor's and txbench's transactions per second and txbench's share of the
# floor, by wall time and by CPU time (transactions per CPU second: the
# floor's replaying thread; txbench's whole process over warm-up and window,
# its warm-up's transactions taken at the window's rate); then the medians.
# On a shared machine the CPU share moves less: time the hypervisor gives
# another guest is no one's CPU time.
#
#   PAIRS=3 TRANSACTIONS=100000 DURATION=8s bench/sqlite-floor.sh
#
# BEFORE=path/to/an/older/txbench runs that binary too, in the same rounds
# (floor, before, this build), and gives its share beside this build's.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
TRANSACTIONS=${TRANSACTIONS:-100000}
DURATION=${DURATION:-8s}
BEFORE=${BEFORE:-}
cargo build --release --quiet -p txbench
cargo build --release --quiet -p txbench-workloads --example sqlite_floor
bin=$PWD/target/release/txbench
floor=$PWD/target/release/examples/sqlite_floor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD)"

# "<txn/s> <txn per CPU second>" of a txbench binary's run, from its summary.json.
throughput() {
    "$1" tpcc --db sqlite::memory: -c 1 -d "$DURATION" --warmup 1s --wait none -q \
        --results "$work/$2" >/dev/null
    python3 - "$work/$2" <<'PY'
import glob, json, sys
s = json.load(open(glob.glob(sys.argv[1] + "/*/summary.json")[0]))
rate = next(m["value"] for m in s["metrics"] if m["name"] == "throughput")
run = s["settings"]["duration_secs"] + s["settings"]["warmup_secs"]
print("%.0f %.0f" % (rate, rate * run / s["cpu"]["process_secs"]))
PY
}
share() { python3 -c "print('%.3f' % ($1 / $2))"; }
median() {
    python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[2:]]; print("%s median %.3f (%.3f-%.3f)" % (sys.argv[1], statistics.median(v), min(v), max(v)))' "$@"
}

wall=() cpu=() before_wall=() before_cpu=()
for pair in $(seq "$PAIRS"); do
    read -r f fc < <("$floor" "$TRANSACTIONS" | sed -E 's/.*: ([0-9]+) txn\/s, ([0-9]+) txn per CPU second/\1 \2/')
    line="pair $pair: floor $f txn/s ($fc per CPU s)"
    if [ -n "$BEFORE" ]; then
        read -r b bc < <(throughput "$BEFORE" "before-$pair")
        before_wall+=("$(share "$b" "$f")") before_cpu+=("$(share "$bc" "$fc")")
        line+=", before $b ($bc) share ${before_wall[-1]} (CPU ${before_cpu[-1]})"
    fi
    read -r t tc < <(throughput "$bin" "$pair")
    wall+=("$(share "$t" "$f")") cpu+=("$(share "$tc" "$fc")")
    echo "$line, txbench $t ($tc) share ${wall[-1]} (CPU ${cpu[-1]})"
done
if [ -n "$BEFORE" ]; then
    median "before share" "${before_wall[@]}"
    median "before CPU share" "${before_cpu[@]}"
fi
median "txbench share" "${wall[@]}"
median "txbench CPU share" "${cpu[@]}"
echo "== load average after $(cut -d' ' -f1-3 /proc/loadavg)"
