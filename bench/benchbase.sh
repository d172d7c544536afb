#!/usr/bin/env bash
# BenchBase's shipped workloads (txbench custom --workload NAME): each one's
# closed-loop throughput and p50/p99 per transaction type at a small scale,
# on an SQLite file, on the local PostgreSQL and on the local MariaDB, then
# capacity sweeps of SmallBank and SEATS on PostgreSQL.
#
#   DURATION=20s TERMINALS=4 bench/benchbase.sh
#   SERVERS=0 bench/benchbase.sh          # SQLite only
#   SWEEP=0 bench/benchbase.sh            # no sweep
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-20s}
TERMINALS=${TERMINALS:-4}
SERVERS=${SERVERS:-1}
SWEEP=${SWEEP:-1}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
MY=${MY:-mysql://root@127.0.0.1:3306}
cargo build --release --quiet
bin=$PWD/target/release/txbench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# name:scale, small enough to load in seconds.
WORKLOADS=${WORKLOADS:-"smallbank:10000 voter:6 sibench:20 twitter:500 epinions:2000 wikipedia:100 seats:20000 resourcestresser:2 noop:1"}
# The workloads swept on PostgreSQL.
SWEEPS=${SWEEPS:-"smallbank seats"}

# The throughput and each type's count, p50 and p99 of a run's summary.json.
report() {
    python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
# Two decimals below 100 (ResourceStresser's few a second), none above.
head = ", ".join(f"{m['value']:,.{0 if m['value'] >= 100 else 2}f} {m['unit']}"
                 for m in s.get("metrics", [])[:1])
print(f"  {head}")
for t in s["transactions"]:
    lat = t["latency_ms"]
    done = t["committed"] + t["expected_rollbacks"]
    share = 100.0 * t["committed"] / done if done else 0.0
    expected = t.get("expected_success")
    against = f" (expected {100.0 * expected:.1f}%)" if expected is not None else ""
    print(f"  {t['name']:<20} {done:>9,} done  {t['expected_rollbacks']:>7,} rollbacks  "
          f"{share:6.2f}% committed{against}  p50 {lat['p50']:.3f} ms  p99 {lat['p99']:.3f} ms")
PY
}

# One closed-loop run of a workload on a database: its figures.
run() {
    local label=$1 name=$2 db=$3
    rm -rf "$work/res"
    "$bin" custom run --workload "$name" --db "$db" -t "$TERMINALS" --duration "$DURATION" \
        --warmup 5s -q --results "$work/res" >/dev/null
    echo "$label $name, $TERMINALS terminals, $DURATION:"
    report "$(find "$work/res" -name summary.json | head -1)"
}

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
for w in $WORKLOADS; do
    name=${w%:*} scale=${w#*:}
    db="sqlite:$work/$name.db"
    "$bin" custom load --workload "$name" --db "$db" --scale "$scale" >/dev/null
    run "sqlite (file)" "$name" "$db"
done

if [ "$SERVERS" = 1 ]; then
    for w in $WORKLOADS; do
        name=${w%:*} scale=${w#*:}
        psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_bb" -c "CREATE DATABASE txbench_bb"
        "$bin" custom load --workload "$name" --db "$PG/txbench_bb" --scale "$scale" >/dev/null
        run "postgres" "$name" "$PG/txbench_bb"
        if [[ " $SWEEPS " == *" $name "* ]] && [ "$SWEEP" = 1 ]; then
            echo "sweep of $name on postgres:"
            "$bin" sweep custom --workload "$name" --db "$PG/txbench_bb" -t "$TERMINALS" \
                --rates "${RATES:-1000..6000}" --step "${STEP:-1000}" --step-duration 10s \
                --slo 'p99<=10ms' -q --results "$work/sweep" 2>&1 | grep -vE '^\s*$' | tail -15
        fi
    done
    psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_bb"
    for w in $WORKLOADS; do
        name=${w%:*} scale=${w#*:}
        mysql -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS txbench_bb; CREATE DATABASE txbench_bb"
        "$bin" custom load --workload "$name" --db "$MY/txbench_bb" --scale "$scale" >/dev/null
        run "mariadb" "$name" "$MY/txbench_bb"
    done
    mysql -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS txbench_bb"
fi
echo "== load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
