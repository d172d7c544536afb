#!/usr/bin/env bash
# TATP's alternative-key strategies side by side, the VoltDB study's shape:
# for each engine, one capacity sweep per --key-access strategy, each on a
# fresh load (open loop, the rate stepped up until less than 90% of it
# completes, p99 of a type breaks the objective or the step's measurement is
# NOT SOUND, then refined), and the table of capacity and p99 of the sub_nbr
# transactions at capacity per strategy.
#
#   cargo build --release && bench/key_access.sh
#
# Environment: TARGETS (space separated, of postgres-partitioned,
# postgres, mysql, sqlite, redis-cluster, served: default
# "postgres-partitioned postgres"; served is `txbench serve` in front of
# partitioned PostgreSQL, strategy server-side), PARTITIONS (8), SUBSCRIBERS (100000), RATES (2000..30000), STEP
# (2000), STEP_DURATION (10s), REFINE (1), SLO ('p99<=10ms'), REPS (1: sweeps
# per strategy, the strategies taken in turn within each, the table giving
# the median capacity and the range), STRATEGIES (all but server-side, which
# needs a txbench server; on redis-cluster the three it runs), PG
# (postgres://postgres@127.0.0.1:5432), MYSQL (mysql://root@127.0.0.1:3306),
# REDIS_CLUSTER (redis-cluster://127.0.0.1:7001, started with
# scripts/redis-cluster.sh when not up), OUT (a new temporary directory),
# TXBENCH (target/release/txbench).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TXBENCH:-target/release/txbench}
TARGETS=${TARGETS:-"postgres-partitioned postgres"}
PARTITIONS=${PARTITIONS:-8}
SUBSCRIBERS=${SUBSCRIBERS:-100000}
RATES=${RATES:-2000..30000}
STEP=${STEP:-2000}
STEP_DURATION=${STEP_DURATION:-10s}
REFINE=${REFINE:-1}
SLO=${SLO:-p99<=10ms}
REPS=${REPS:-1}
REDIS_CLUSTER=${REDIS_CLUSTER:-redis-cluster://127.0.0.1:7001}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
MYSQL=${MYSQL:-mysql://root@127.0.0.1:3306}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for target in $TARGETS; do
    partitions=()
    strategies=${STRATEGIES:-single,lookup,index,every-partition,try-every-partition}
    case $target in
    postgres-partitioned)
        psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_keys WITH (FORCE)" -c "CREATE DATABASE txbench_keys"
        url="$PG/txbench_keys"
        partitions=(--partitions "$PARTITIONS")
        ;;
    postgres)
        psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_keys WITH (FORCE)" -c "CREATE DATABASE txbench_keys"
        url="$PG/txbench_keys"
        ;;
    mysql) url="$MYSQL/txbench_keys" ;;
    sqlite) url="sqlite:$OUT/tatp.db" ;;
    served)
        psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_keys WITH (FORCE)" -c "CREATE DATABASE txbench_keys"
        url=txbench://127.0.0.1:7077
        partitions=(--partitions "$PARTITIONS")
        strategies=${STRATEGIES:-server-side}
        ;;
    redis-cluster)
        scripts/redis-cluster.sh up >/dev/null
        url=$REDIS_CLUSTER
        partitions=(--partitions "$PARTITIONS")
        strategies=${STRATEGIES:-index,every-partition,try-every-partition}
        ;;
    *)
        echo "unknown target '$target'" >&2
        exit 2
        ;;
    esac
    # Each strategy on a fresh load: the mix's inserts and deletes churn the
    # call forwardings, and a strategy swept after others would meet data
    # whose success rates have drifted from those TATP expects.
    for rep in $(seq 1 "$REPS"); do
        for strategy in ${strategies//,/ }; do
            if [ "$target" = served ]; then
                # The server's database, loaded fresh, then the server on it.
                "$BIN" tatp load --db "$PG/txbench_keys" --subscribers "$SUBSCRIBERS" --drop \
                    "${partitions[@]}" >/dev/null
                "$BIN" serve --db "$PG/txbench_keys" --workload tatp --listen 127.0.0.1:7077 \
                    >"$OUT/serve.log" 2>&1 &
                server=$!
                until grep -q "serving" "$OUT/serve.log"; do sleep 0.2; done
            else
                "$BIN" tatp load --db "$url" --subscribers "$SUBSCRIBERS" --drop "${partitions[@]}" >/dev/null
            fi
            # Exit 3 (no step met the objective) still wrote the sweep.
            "$BIN" sweep tatp --db "$url" --key-access "$strategy" --rates "$RATES" --step "$STEP" \
                --step-duration "$STEP_DURATION" --refine "$REFINE" --slo "$SLO" \
                --results "$OUT/$target/$strategy/$rep" >"$OUT/$target-$strategy-$rep.log" 2>&1 ||
                [ $? = 3 ]
            if [ "$target" = served ]; then
                kill -TERM "$server"
                wait "$server" || true
            fi
        done
    done
    echo "== $target (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    python3 - "$OUT/$target" "$strategies" <<'PY'
import glob, json, statistics, sys
root, strategies = sys.argv[1], sys.argv[2].split(",")
types = ("update_location", "insert_call_forwarding", "delete_call_forwarding")
print("| strategy | capacity/s, median (range) | p99 of the sub_nbr transactions at capacity, ms, median | sweeps (met the objective) |")
print("|---|---|---|---|")
for strategy in strategies:
    capacities, p99s = [], []
    paths = sorted(glob.glob(f"{root}/{strategy}/*/*/sweep.json"))
    for path in paths:
        sweep = json.load(open(path))
        cap = sweep["capacity_rate"]
        if cap is None:
            continue
        step = next(st for st in sweep["steps"] if st["passed"] and st["offered_rate"] == cap)
        summary = json.load(open(f"{path.rsplit('/', 1)[0]}/{step['results']}"))
        capacities.append(cap)
        p99s.append(max(t["latency_ms"]["p99"] for t in summary["transactions"] if t["key"] in types))
    row = [strategy, "-", "-", f"{len(paths)} ({len(capacities)})"]
    if capacities:
        row[1] = f"{statistics.median(capacities):,.0f} ({min(capacities):,.0f}-{max(capacities):,.0f})"
        row[2] = f"{statistics.median(p99s):.2f}"
    print("| " + " | ".join(row) + " |")
PY
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "results: $OUT"
