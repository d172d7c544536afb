#!/usr/bin/env bash
# The cost of the acknowledged-work log: TPC-C runs with and without --ack-log,
# alternated (A B A B ...) in one sitting so that the machine's drift falls on
# both, on an SQLite file (the client does the most per transaction: the worst
# case) and on the local PostgreSQL. Prints each run's tpmC and the medians.
#
#   PG=postgres://postgres@127.0.0.1:5432 DURATION=20s PAIRS=5 bench/acks.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${PG:-postgres://postgres@127.0.0.1:5432}
DURATION=${DURATION:-20s}
PAIRS=${PAIRS:-5}
cargo build --release --quiet
bin=$PWD/target/release/txbench
work=$(mktemp -d)
trap 'rm -rf "$work"; psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_acks WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"

tpmc() { python3 -c "import json,sys; print(round(next(m['value'] for m in json.load(open(sys.argv[1]))['metrics'] if m['name']=='tpmC')))" "$1"; }

# bench NAME URL: PAIRS alternating runs, off then on.
bench() {
    local name=$1 url=$2 off=() on=()
    "$bin" tpcc load --db "$url" --warehouses 1 --threads 2 --drop >/dev/null
    for i in $(seq 1 "$PAIRS"); do
        for log in off on; do
            local flags=() dir="$work/$name-$log-$i"
            [ "$log" = on ] && flags=(--ack-log)
            "$bin" tpcc run --db "$url" --duration "$DURATION" --warmup 3s --terminals 4 \
                --wait none -q --results "$dir" "${flags[@]}" >/dev/null
            local t
            t=$(tpmc "$dir"/*/summary.json)
            echo "$name pair $i, log $log: tpmC $t"
            if [ "$log" = on ]; then on+=("$t"); else off+=("$t"); fi
        done
    done
    python3 - "$name" "${off[*]}" "${on[*]}" <<'PY'
import statistics, sys
name, off, on = sys.argv[1], list(map(int, sys.argv[2].split())), list(map(int, sys.argv[3].split()))
ratios = sorted(b / a for a, b in zip(off, on))
print(f"{name}: median tpmC without {statistics.median(off):,.0f}, with {statistics.median(on):,.0f}; "
      f"with/without pair by pair: median {statistics.median(ratios):.3f} (min {ratios[0]:.3f}, max {ratios[-1]:.3f})")
PY
}

bench sqlite "sqlite:$work/t.db"
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_acks WITH (FORCE)" -c "CREATE DATABASE txbench_acks"
bench postgres "$PG/txbench_acks?sslmode=disable"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
