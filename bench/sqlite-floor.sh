#!/usr/bin/env bash
# txbench on embedded SQLite against its floor: the same statements, replayed
# through rusqlite alone on the same data (examples/sqlite_floor.rs), alternated
# with `txbench tpcc` in memory on one connection (--wait none). Per pair: the
# floor's and txbench's transactions per second and txbench's share of the
# floor; then the median share.
#
#   PAIRS=3 TRANSACTIONS=100000 DURATION=8s bench/sqlite-floor.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
TRANSACTIONS=${TRANSACTIONS:-100000}
DURATION=${DURATION:-8s}
cargo build --release --quiet -p txbench
cargo build --release --quiet -p txbench-workloads --example sqlite_floor
bin=$PWD/target/release/txbench
floor=$PWD/target/release/examples/sqlite_floor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD)"
shares=()
for pair in $(seq "$PAIRS"); do
    f=$("$floor" "$TRANSACTIONS" | sed -E 's/.*: ([0-9]+) txn\/s/\1/')
    "$bin" tpcc --db sqlite::memory: -c 1 -d "$DURATION" --warmup 1s --wait none -q \
        --results "$work/$pair" >/dev/null
    t=$(python3 -c 'import json,glob,sys; s=json.load(open(glob.glob(sys.argv[1]+"/*/summary.json")[0])); print("%.0f" % next(m["value"] for m in s["metrics"] if m["name"]=="throughput"))' "$work/$pair")
    share=$(python3 -c "print('%.3f' % ($t / $f))")
    shares+=("$share")
    echo "pair $pair: floor $f txn/s, txbench $t txn/s, share $share"
done
python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print("median share %.3f (%.3f-%.3f)" % (statistics.median(v), min(v), max(v)))' "${shares[@]}"
echo "== load average after $(cut -d' ' -f1-3 /proc/loadavg)"
