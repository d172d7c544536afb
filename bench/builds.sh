#!/usr/bin/env bash
# Two builds of txbench side by side: TPC-C's throughput and the client's CPU
# per transaction on SQLite (in memory), PostgreSQL and MariaDB, the builds
# alternating run by run so that both see the same minutes of the machine.
#
#   BEFORE=/path/to/txbench-old AFTER=/path/to/txbench-new RUNS=4 DURATION=15s bench/builds.sh
#
# ENGINES (default "sqlite postgres mariadb") picks the databases; "redis"
# runs YCSB A and Retwis on the local Redis (databases 12 and 13), the
# key-value path.
#
# CPU per transaction: the process's CPU over the run (warm-up included, as
# summary.json's cpu.process_secs counts it) over the transactions of the
# window and the warm-up at the window's rate. On SQLite the engine runs in
# the process, so its CPU counts too.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BEFORE:?BEFORE=path of the first build}" "${AFTER:?AFTER=path of the second build}"
RUNS=${RUNS:-4}
ENGINES=${ENGINES:-sqlite postgres mariadb}
DURATION=${DURATION:-15s}
WARMUP=${WARMUP:-3}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
MY=${MY:-mysql://root@127.0.0.1:3306}
REDIS=${REDIS:-redis://127.0.0.1:6379}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One run: prints "txn/s cpu-us-per-txn" from the run's summary.json.
one() {
    local bin=$1 workload=$2 db=$3 terminals=$4
    rm -rf "$out/r"
    "$bin" "$workload" run --db "$db" --duration "$DURATION" --warmup "${WARMUP}s" \
        --terminals "$terminals" --wait none --results "$out/r" >/dev/null
    python3 - "$out/r" "$WARMUP" <<'EOF'
import glob, json, sys
r = json.load(open(glob.glob(sys.argv[1] + "/*/summary.json")[0]))
done = sum(t["committed"] + t.get("expected_rollbacks", 0) for t in r["transactions"])
rate = done / r["measured_secs"]
txns = rate * (r["measured_secs"] + float(sys.argv[2]))
print(f"{rate:.0f} {r['cpu']['process_secs'] / txns * 1e6:.1f}")
EOF
}

echo "== $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
pg="$PG/txbench_builds?sslmode=disable"
my="$MY/txbench_builds"
cases=()
for engine in $ENGINES; do
    case $engine in
    sqlite) cases+=("tpcc sqlite::memory: 1") ;;
    postgres) "$AFTER" tpcc load --db "$pg" --warehouses 1 --drop >/dev/null; cases+=("tpcc $pg 4") ;;
    mariadb) "$AFTER" tpcc load --db "$my" --warehouses 1 --drop >/dev/null; cases+=("tpcc $my 4") ;;
    redis)
        "$AFTER" ycsb load --db "$REDIS/12" --records 100000 --drop >/dev/null
        cases+=("ycsb $REDIS/12 4")
        "$AFTER" retwis load --db "$REDIS/13" --keys 100000 --drop >/dev/null
        cases+=("retwis $REDIS/13 4")
        ;;
    *) echo "unknown engine '$engine' (sqlite, postgres, mariadb, redis)" >&2; exit 2 ;;
    esac
done
for case in "${cases[@]}"; do
    read -r workload db terminals <<<"$case"
    for i in $(seq "$RUNS"); do
        for b in BEFORE AFTER; do
            echo "$workload $db terminals $terminals $b run $i: $(one "${!b}" "$workload" "$db" "$terminals")"
        done
    done
done
echo "== load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
for case in "${cases[@]}"; do
    read -r workload db _ <<<"$case"
    if [[ $db == redis://* ]]; then
        "$AFTER" "$workload" clean --db "$db" >/dev/null
    fi
done
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_builds WITH (FORCE)"
mysql -uroot -h127.0.0.1 -e "DROP DATABASE IF EXISTS txbench_builds"
