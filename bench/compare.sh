#!/usr/bin/env bash
# Calibration of `compare` on sets (--repeat): PAIRS pairs of sets of the
# same plan, each pair compared; a comparison is a false alarm when it calls
# any figure better or worse. Then sets of a server 10% slower, which must be
# found. On the simulated server (sim:, a known 1 ms of service) and, when
# PG is set, TATP on the local PostgreSQL.
#
#   PAIRS=20 RUNS=5 DURATION=1s PG=postgres://postgres@127.0.0.1:5432 bench/compare.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-20}
RUNS=${RUNS:-5}
DURATION=${DURATION:-1s}
PG=${PG:-}
cargo build --release --quiet
bin=$PWD/target/release/txbench
work=$(mktemp -d)
cleanup() {
    rm -rf "$work"
    if [ -n "$PG" ]; then
        psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_calibration WITH (FORCE)" \
            >/dev/null 2>&1 || true
    fi
}
trap cleanup EXIT
echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"

# set NAME URL: one set of RUNS runs into $work/NAME; prints its directory.
set_of() {
    "$bin" tatp run --db "$2" --subscribers 1000 --terminals 4 --duration "$DURATION" \
        --warmup 1s --repeat "$RUNS" -q --no-report --results "$work/$1" >/dev/null
    echo "$work/$1"/*-set
}

# judged A B: the figures `compare` called better or worse, one per line.
judged() {
    "$bin" compare "$1" "$2" --json "$work/cmp.json" >/dev/null
    python3 - "$work/cmp.json" <<'PY'
import json, sys
for row in json.load(open(sys.argv[1]))["rows"]:
    j = row["judgement"][1]
    if j in ("better", "worse"):
        lo, hi = row["change_interval_pct"][1]
        print(f"  {row['name']}: {row['change_pct'][1]:+.1f}% [{lo:+.1f}, {hi:+.1f}] {j}")
PY
}

# calibrate LABEL URL: PAIRS pairs of same-plan sets.
calibrate() {
    local label=$1 url=$2 alarms=0
    for i in $(seq 1 "$PAIRS"); do
        local a b found
        a=$(set_of "$label-a$i" "$url")
        b=$(set_of "$label-b$i" "$url")
        found=$(judged "$a" "$b")
        if [ -n "$found" ]; then
            alarms=$((alarms + 1))
            echo "$label pair $i: changed"
            echo "$found"
        else
            echo "$label pair $i: no significant change"
        fi
    done
    echo "== $label: $((PAIRS - alarms)) of $PAIRS same-plan comparisons said no significant change"
}

calibrate sim "sim:?service=fixed:1ms&workers=1"
if [ -n "$PG" ]; then
    url="$PG/txbench_calibration"
    "$bin" tatp load --db "$url" --subscribers 1000 --drop >/dev/null
    calibrate postgres "$url"
fi

echo "== a server 10% slower (1.1 ms of service against 1 ms):"
a=$(set_of slow-a "sim:?service=fixed:1ms&workers=1")
b=$(set_of slow-b "sim:?service=fixed:1.1ms&workers=1")
judged "$a" "$b" | grep throughput || echo "  throughput: NOT FOUND"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
