#!/usr/bin/env bash
# pgbench's own TPC-B against txbench's, on one database pgbench -i made:
# `pgbench -M prepared`, `txbench pgbench run --round-trips statement` (one
# prepared statement a round trip, as pgbench sends them) and txbench's
# default (pipelined), alternated round by round with the same clients and
# length. Per run: the throughput and the latency each tool reports (pgbench:
# its average; txbench: its mean and p99), and the client's CPU per
# transaction (user + system of the process, by /usr/bin/time, over the whole
# process: connecting and warm-up included for both). Then pgbench's own
# pipeline (`\startpipeline` around the same script) beside them, and
# pgbench -R RATE against txbench's open loop at the same rate (Poisson
# arrivals both): pgbench's latencies from its per-transaction log, which
# under -R count from the scheduled start, as txbench's do.
#
#   ROUNDS=3 DURATION=15 CLIENTS=4 SCALE=1 RATE=1000 bench/pgbench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-15}
CLIENTS=${CLIENTS:-4}
SCALE=${SCALE:-1}
RATE=${RATE:-1000}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
PGBENCH=${PGBENCH:-$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1)}
cargo build --release --quiet
bin=$PWD/target/release/txbench
db="$PG/txbench_peers"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_peers WITH (FORCE)" -c "CREATE DATABASE txbench_peers"
"$PGBENCH" -i -q -s "$SCALE" "$db" >/dev/null 2>&1
echo "== $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD)"
echo "== pgbench tpcb-like on PostgreSQL, scale $SCALE, $CLIENTS clients, ${DURATION} s, $ROUNDS rounds"
cpu() { awk '{ printf "%.2f", $1 + $2 }' "$1"; }
for round in $(seq "$ROUNDS"); do
    /usr/bin/time -f "%U %S" -o "$work/cpu" \
        "$PGBENCH" -n -M prepared -c "$CLIENTS" -j 1 -T "$DURATION" "$db" >"$work/out" 2>&1
    tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/out")
    avg=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$work/out")
    n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$work/out")
    per=$(awk -v c="$(cpu "$work/cpu")" -v n="$n" 'BEGIN { printf "%.0f", c * 1e6 / n }')
    echo "round $round pgbench -M prepared: $tps tps, latency average $avg ms, client CPU $per us a transaction ($n)"
    for mode in statement pipelined; do
        /usr/bin/time -f "%U %S" -o "$work/cpu" \
            "$bin" pgbench run --db "$db" -t "$CLIENTS" -d "${DURATION}s" --warmup 0s \
            --round-trips "$mode" -q --no-report --results "$work/$mode-$round" >/dev/null 2>&1
        bench/txbench_line.py "$work/$mode-$round" "round $round txbench --round-trips $mode" "$(cpu "$work/cpu")"
    done
done
# pgbench's tpcb-like in one pipeline: BEGIN to END sent together.
cat >"$work/pipeline.sql" <<'SQL'
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
\startpipeline
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
\endpipeline
SQL
pg_run() {
    local label=$1; shift
    /usr/bin/time -f "%U %S" -o "$work/cpu" "$PGBENCH" -n -M prepared -c "$CLIENTS" -j 1 -T "$DURATION" \
        -l --log-prefix="$work/log" "$@" "$db" >"$work/out" 2>&1
    python3 - "$work" "$label" "$(cpu "$work/cpu")" <<'PY'
import glob, os, re, sys
out = open(sys.argv[1] + "/out").read()
n = int(re.search(r"number of transactions actually processed: (\d+)", out).group(1))
tps = float(re.search(r"tps = ([\d.]+)", out).group(1))
lat = []
for f in glob.glob(sys.argv[1] + "/log.*"):
    lat += [int(line.split()[2]) / 1000 for line in open(f)]
    os.remove(f)
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
print("%s: %.0f tps, latency mean %.3f ms p50 %.3f ms p99 %.3f ms, client CPU %.0f us a transaction (%d)"
      % (sys.argv[2], tps, sum(lat) / len(lat), q(0.5), q(0.99), float(sys.argv[3]) * 1e6 / n, n))
PY
}
tx_run() {
    local label=$1; shift
    /usr/bin/time -f "%U %S" -o "$work/cpu" \
        "$bin" pgbench run --db "$db" -t "$CLIENTS" -d "${DURATION}s" --warmup 0s -q --no-report \
        --results "$work/tx" "$@" >/dev/null 2>&1
    bench/txbench_line.py "$work/tx" "$label" "$(cpu "$work/cpu")"
    rm -rf "$work/tx"
}
echo "== pipelined: pgbench \\startpipeline against txbench's default, $ROUNDS rounds"
for round in $(seq "$ROUNDS"); do
    pg_run "round $round pgbench \\startpipeline" -f "$work/pipeline.sql"
    tx_run "round $round txbench pipelined"
done
echo "== open loop at $RATE/s: pgbench -R against txbench --rate, $ROUNDS rounds"
for round in $(seq "$ROUNDS"); do
    pg_run "round $round pgbench -R $RATE" -R "$RATE"
    tx_run "round $round txbench --rate $RATE/s" --rate "$RATE/s"
done
"$bin" pgbench check --db "$db" | cut -c1-6 | sort | uniq -c
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_peers WITH (FORCE)"
