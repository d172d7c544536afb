#!/usr/bin/env bash
# The CH-benCHmark on PostgreSQL and MariaDB: TPC-C's terminals with 0, 1 and
# 2 analytical streams beside them, alternated round by round in one sitting.
# Prints, per run, tpmC, New-Order's p50/p99, QphH and each query's mean
# latency, as the results record them. With PHASES (a phase length, such as
# 30s), each run with streams alternates phases without and with them
# (--analytic-phases) and also prints each phase's tpmC and the ratios of
# with against without, with their intervals.
#
#   BIN=target/release/txbench WAREHOUSES=1 TERMINALS=8 DURATION=30s ROUNDS=2 \
#   STREAMS="0 1 2" [PHASES=30s] bench/ch.sh
#
# With FRONTIER (stream counts, such as 0,1,2), each engine instead runs the
# frontier (`txbench sweep ch --frontier`) over those streams and the
# terminal counts TERMINALS gives (such as 4,8), DURATION a step, and prints
# each step's tpmC, QphH and New-Order p99.
#
# Needs a PostgreSQL at PG (default postgres://postgres@127.0.0.1:5432) and a
# MariaDB at MY (default mysql://root@127.0.0.1:3306); makes and drops a
# database `txbench_ch_bench` on each.
set -euo pipefail

BIN=${BIN:-target/release/txbench}
WAREHOUSES=${WAREHOUSES:-1}
TERMINALS=${TERMINALS:-8}
DURATION=${DURATION:-30s}
ROUNDS=${ROUNDS:-2}
STREAMS=${STREAMS:-"0 1 2"}
PHASES=${PHASES:-}
FRONTIER=${FRONTIER:-}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
MY=${MY:-mysql://root@127.0.0.1:3306}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

summarise() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
metrics = {m["name"]: m["value"] for m in d["metrics"]}
types = {t["key"]: t for t in d["transactions"]}
no = types["new_order"]["latency_ms"]
queries = [t for t in d["transactions"] if t["key"].startswith("q") and t["committed"]]
line = (f'streams {d["settings"]["options"].get("analytic_streams")}: '
        f'tpmC {metrics["tpmC"]:,.0f}, New-Order p50 {no["p50"]:.2f} p99 {no["p99"]:.2f} ms, '
        f'QphH {metrics["QphH"]:,.0f}, verdict {d["verdict"]["status"] if isinstance(d["verdict"], dict) else d["verdict"]}')
print(line)
if queries:
    print("  query means (ms): " + ", ".join(
        f'{t["name"]} {t["latency_ms"]["mean"]:.0f}' for t in queries))
alt = d.get("alternation")
if alt:
    def tpmc(p):
        return next((m["value"] for m in p["metrics"] if m["name"] == "tpmC"), 0)
    print("  phases (tpmC, without/with): " + ", ".join(
        f'{"W" if p["with_held"] else "-"} {tpmc(p):,.0f} ({p["counted_secs"]:.0f} s)'
        for p in alt["phases"]))
    for c in alt["contrasts"]:
        iv = c["interval"]
        iv = f'{iv[0]:.2f}..{iv[1]:.2f}' if iv else "none"
        print(f'  {c["name"]}: {c["without"]:,.2f} without, {c["with"]:,.2f} with, '
              f'ratio {c["ratio"]:.3f} (95% {iv}, {c["phases"]} phases with)')
PY
}

for engine in postgres mysql; do
    case $engine in
        postgres) base=$PG ;;
        mysql) base=$MY ;;
    esac
    url="$base/txbench_ch_bench"
    "$BIN" ch load --db "$url" --warehouses "$WAREHOUSES" --drop | tail -1
    if [ -n "$FRONTIER" ]; then
        echo "== $engine frontier, $(cut -d' ' -f1-3 /proc/loadavg) load"
        "$BIN" sweep ch --db "$url" --warehouses "$WAREHOUSES" --frontier "$FRONTIER" \
            --frontier-terminals "$TERMINALS" --step-duration "$DURATION" --warmup 5s -q \
            --results "$OUT" >/dev/null || true
        python3 - "$(ls -td "$OUT"/*/ | head -1)frontier.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
for p in f["points"]:
    print(f'terminals {p["terminals"]}, streams {p["added"]}: {f["y"]} {p["y"]:,.0f}, '
          f'{f["x"]} {p["x"]:,.0f}, New-Order p99 {p["first_type_p99_ms"]:.2f} ms, {p["verdict"]}')
PY
        "$BIN" ch clean --db "$url" >/dev/null
        "$BIN" tpcc clean --db "$url" >/dev/null
        continue
    fi
    for round in $(seq 1 "$ROUNDS"); do
        for a in $STREAMS; do
            echo "== $engine round $round, $(cut -d' ' -f1-3 /proc/loadavg) load"
            phases=()
            if [ -n "$PHASES" ] && [ "$a" != 0 ]; then
                phases=(--analytic-phases "$PHASES")
            fi
            "$BIN" ch run --db "$url" --warehouses "$WAREHOUSES" -t "$TERMINALS" \
                --analytic-streams "$a" -d "$DURATION" --warmup 5s -q \
                "${phases[@]}" --results "$OUT" >/dev/null || true
            summarise "$(ls -td "$OUT"/*/ | head -1)summary.json"
        done
    done
    "$BIN" ch clean --db "$url" >/dev/null
    "$BIN" tpcc clean --db "$url" >/dev/null
done
