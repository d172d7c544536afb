#!/usr/bin/env bash
# The CH-benCHmark's freshness on PostgreSQL: TPC-C on a primary, the
# analytical streams either on the primary too or on an asynchronous standby
# (--analytic-db), alternated round by round in one sitting. Prints, per run,
# tpmC, New-Order's p99, QphH and the streams' looks (age mean and largest,
# how many looks saw less than was acknowledged, the most New-Orders unseen),
# and, beside the standby runs, PostgreSQL's own replay lag
# (now() - pg_last_xact_replay_timestamp() on the standby), read each second.
#
#   BIN=target/release/txbench WAREHOUSES=1 TERMINALS=8 STREAMS=2 DURATION=30s \
#   ROUNDS=2 bench/ch_freshness.sh
#
# Makes its own primary and standby with scripts/pg-replica.sh (name
# txbench_fresh_bench, ports 25431 and 25432) and removes them at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-target/release/txbench}
WAREHOUSES=${WAREHOUSES:-1}
TERMINALS=${TERMINALS:-8}
STREAMS=${STREAMS:-2}
DURATION=${DURATION:-30s}
ROUNDS=${ROUNDS:-2}
export PG_REPLICA_NAME=txbench_fresh_bench PG_REPLICA_PORT=25431
PRIMARY=postgres://postgres@127.0.0.1:25431/test
STANDBY=postgres://postgres@127.0.0.1:25432/test
OUT=$(mktemp -d)
trap 'scripts/pg-replica.sh down >/dev/null 2>&1; rm -rf "$OUT"' EXIT

scripts/pg-replica.sh up --async >/dev/null
"$BIN" ch load --db "$PRIMARY" -w "$WAREHOUSES" >/dev/null

summarise() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
metrics = {m["name"]: m["value"] for m in d["metrics"]}
no = next(t for t in d["transactions"] if t["key"] == "new_order")["latency_ms"]
f = d.get("freshness") or {}
print(f'  tpmC {metrics["tpmC"]:,.0f}, New-Order p99 {no["p99"]:.2f} ms, QphH {metrics.get("QphH", 0):,.0f}; '
      f'looks {f.get("rounds", 0)}, stale {f.get("stale_rounds", 0)}, age mean {f.get("age_mean_ms", 0):,.0f} ms '
      f'max {f.get("age_max_ms", 0):,.0f} ms, unseen max {f.get("unseen_max", 0):,}')
PY
}

# PostgreSQL's replay lag on the standby, once a second, until $1 exists.
replay_lag() {
    while [ ! -e "$1" ]; do
        psql -X -A -t -h 127.0.0.1 -p 25432 -U postgres -d test -c \
            "SELECT round(extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000)" \
            2>/dev/null || true
        sleep 1
    done
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$ROUNDS"); do
    for where in primary standby; do
        args=(--db "$PRIMARY" -t "$TERMINALS" --analytic-streams "$STREAMS" -d "$DURATION" -q
              --results "$OUT/$where$round")
        [ "$where" = standby ] && args+=(--analytic-db "$STANDBY")
        echo "round $round, analytics on the $where:"
        if [ "$where" = standby ]; then
            replay_lag "$OUT/done$round" > "$OUT/lag$round" &
        fi
        "$BIN" ch run "${args[@]}" >/dev/null
        if [ "$where" = standby ]; then
            touch "$OUT/done$round"
            wait
        fi
        summarise "$(ls -d "$OUT/$where$round"/*/)summary.json"
        if [ "$where" = standby ]; then
            python3 - "$OUT/lag$round" <<'PY'
import sys
lags = [float(x) for x in open(sys.argv[1]).read().split()]
if lags:
    print(f"  PostgreSQL's replay lag, read {len(lags)} times a second apart (warm-up included): "
          f"mean {sum(lags) / len(lags):,.0f} ms, max {max(lags):,.0f} ms")
PY
        fi
    done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
