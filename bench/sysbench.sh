#!/usr/bin/env bash
# sysbench's OLTP scripts against txbench's, on one database: the load
# (`sysbench prepare` against `txbench sysbench load`, alternated, each on an
# empty database), then per script `sysbench` (prepared statements, one a
# round trip), `txbench sysbench run --round-trips statement` (the same) and
# txbench's default (pipelined), alternated round by round with the same
# threads, length and uniform requests, on tables txbench loaded. Per run:
# the throughput and the latency each tool reports (sysbench: its average
# and 99th percentile; txbench: its mean, p50 and p99, from the intended
# start), and the client's CPU per transaction (user + system of the
# process, by /usr/bin/time, over the whole process: connecting included).
#
#   ROUNDS=3 DURATION=15 THREADS=4 TABLES=4 SIZE=10000 bench/sysbench.sh
#   DB=postgres://postgres@127.0.0.1:5432 bench/sysbench.sh     # on PostgreSQL
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-15}
THREADS=${THREADS:-4}
TABLES=${TABLES:-4}
SIZE=${SIZE:-10000}
SCRIPTS=${SCRIPTS:-oltp_read_write oltp_point_select}
DB=${DB:-mysql://root@127.0.0.1:3306}
cargo build --release --quiet
bin=$PWD/target/release/txbench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
host_port=${DB#*@}
host=${host_port%:*}
port=${host_port#*:}
user=${DB#*://}
user=${user%@*}
case $DB in
    mysql://*)
        driver=mysql
        fresh() { mysql -h "$host" -P "$port" -u "$user" -e "DROP DATABASE IF EXISTS txbench_peers; CREATE DATABASE txbench_peers"; }
        ;;
    *)
        driver=pgsql
        fresh() { psql "$DB/postgres" -qc "DROP DATABASE IF EXISTS txbench_peers WITH (FORCE)" -c "CREATE DATABASE txbench_peers"; }
        ;;
esac
url="$DB/txbench_peers"
sb=(--db-driver="$driver" --"$driver"-host="$host" --"$driver"-port="$port" --"$driver"-user="$user"
    --"$driver"-db=txbench_peers --tables="$TABLES" --table-size="$SIZE" --rand-type=uniform)
cpu() { awk '{ printf "%.2f", $1 + $2 }' "$1"; }
elapsed() { awk '{ printf "%.2f", $3 }' "$1"; }
echo "== $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD)"
echo "== load: $TABLES tables of $SIZE rows on $driver, $ROUNDS rounds"
for round in $(seq "$ROUNDS"); do
    fresh
    /usr/bin/time -f "%U %S %e" -o "$work/t" sysbench oltp_read_write "${sb[@]}" prepare >/dev/null
    echo "round $round sysbench prepare: $(elapsed "$work/t") s"
    fresh
    /usr/bin/time -f "%U %S %e" -o "$work/t" \
        "$bin" sysbench load --db "$url" --tables "$TABLES" --table-size "$SIZE" >/dev/null 2>&1
    echo "round $round txbench sysbench load: $(elapsed "$work/t") s"
done
for script in $SCRIPTS; do
    echo "== $script, $THREADS threads, ${DURATION} s, $ROUNDS rounds"
    for round in $(seq "$ROUNDS"); do
        /usr/bin/time -f "%U %S" -o "$work/cpu" sysbench "$script" "${sb[@]}" \
            --threads="$THREADS" --time="$DURATION" --percentile=99 run >"$work/out" 2>&1
        python3 - "$work/out" "$round" "$(cpu "$work/cpu")" <<'PY'
import re, sys
out = open(sys.argv[1]).read()
n, tps = re.search(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", out).groups()
avg = re.search(r"avg:\s+([\d.]+)", out).group(1)
p99 = re.search(r"99th percentile:\s+([\d.]+)", out).group(1)
errors = re.search(r"ignored errors:\s+(\d+)", out).group(1)
per = float(sys.argv[3]) * 1e6 / int(n)
print("round %s sysbench: %.0f tps, latency avg %s ms 99th %s ms, client CPU %.0f us a transaction (%s, %s ignored errors)"
      % (sys.argv[2], float(tps), avg, p99, per, n, errors))
PY
        for mode in statement pipelined; do
            /usr/bin/time -f "%U %S" -o "$work/cpu" \
                "$bin" sysbench run --db "$url" --script "$script" --tables "$TABLES" -t "$THREADS" \
                -d "${DURATION}s" --warmup 0s --round-trips "$mode" -q --no-report \
                --results "$work/$script-$mode-$round" >/dev/null 2>&1
            bench/txbench_line.py "$work/$script-$mode-$round" \
                "round $round txbench --round-trips $mode" "$(cpu "$work/cpu")"
        done
    done
done
"$bin" sysbench check --db "$url" --tables "$TABLES" | cut -c1-6 | sort | uniq -c
fresh
