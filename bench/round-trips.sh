#!/usr/bin/env bash
# What pipelining buys: TPC-C with --round-trips pipelined and statement,
# alternated run by run on the local PostgreSQL and MariaDB (1 warehouse,
# --wait none). Per run: tpmC, New-Order p50/p99 (ms), client CPU per 1,000
# transactions (the process's CPU over warm-up and window); then the medians
# and statement/pipelined pair by pair.
#
#   PAIRS=5 DURATION=20s TERMINALS=4 bench/round-trips.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
DURATION=${DURATION:-20s}
WARMUP=${WARMUP:-2s}
TERMINALS=${TERMINALS:-4}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
MY=${MY:-mysql://root@127.0.0.1:3306}
cargo build --release --quiet
bin=$PWD/target/release/txbench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_rt WITH (FORCE)" -c "CREATE DATABASE txbench_rt"
mysql -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS txbench_rt; CREATE DATABASE txbench_rt"
echo "== $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD)"
for db in "$PG/txbench_rt?sslmode=disable" "$MY/txbench_rt"; do
    "$bin" tpcc load --db "$db" --drop >/dev/null
    echo "== ${db%%:*}, $TERMINALS terminals, $DURATION after $WARMUP, $PAIRS pairs"
    for pair in $(seq "$PAIRS"); do
        for mode in pipelined statement; do
            dir="$work/${db%%:*}-$mode-$pair"
            "$bin" tpcc run --db "$db" -d "$DURATION" --warmup "$WARMUP" -t "$TERMINALS" \
                --wait none -q --round-trips "$mode" --results "$dir" >/dev/null
        done
    done
    python3 - "$work" "${db%%:*}" "$PAIRS" <<'PY'
import json, glob, statistics, sys
work, engine, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3])
def figures(mode, pair):
    [path] = glob.glob(f"{work}/{engine}-{mode}-{pair}/*/summary.json")
    s = json.load(open(path))
    tpmc = next(m["value"] for m in s["metrics"] if m["name"] == "tpmC")
    tps = next(m["value"] for m in s["metrics"] if m["name"] == "throughput")
    no = next(t for t in s["transactions"] if t["key"] == "new_order")
    st = s["settings"]
    cpu = s["cpu"]["process_secs"] / (tps * (st["duration_secs"] + st["warmup_secs"])) * 1000
    return tpmc, no["latency_ms"]["p50"], no["latency_ms"]["p99"], cpu
rows = {m: [figures(m, p) for p in range(1, pairs + 1)] for m in ("pipelined", "statement")}
for p in range(pairs):
    print("pair %d: " % (p + 1) + "; ".join(
        "%s tpmC %.0f p50 %.2f p99 %.2f cpu %.3f s/1000" % ((m,) + rows[m][p]) for m in rows))
names = ("tpmC", "New-Order p50 ms", "New-Order p99 ms", "client CPU s per 1000 txn")
for i, name in enumerate(names):
    med = {m: statistics.median(r[i] for r in rows[m]) for m in rows}
    ratios = [rows["statement"][p][i] / rows["pipelined"][p][i] for p in range(pairs)]
    print("%-26s pipelined %9.3f  statement %9.3f  statement/pipelined median %.2f (%.2f-%.2f)" % (
        name, med["pipelined"], med["statement"], statistics.median(ratios), min(ratios), max(ratios)))
PY
done
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_rt WITH (FORCE)"
mysql -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS txbench_rt"
