#!/usr/bin/env bash
# sysbench's oltp_read_write statement by statement (one prepared statement a
# round trip), three clients alternated round by round on the same tables
# (txbench loaded them): sysbench, `txbench sysbench run --round-trips
# statement` and the floor (examples/my_floor.rs: the same twenty round trips
# from one thread polling its connections, rows walked and not decoded,
# nothing else; then the same with a thread a connection blocking on its
# socket, as sysbench's threads do). Uniform ids for all; no TLS (sysbench
# asks for none).
# Per run the throughput, the client's CPU a transaction, user and system
# apart (/usr/bin/time over the whole process), and the server's (mariadbd's
# user and system time over the run, /proc/PID/stat; the server on this
# machine).
#
#   ROUNDS=4 DURATION=6 THREADS=4 TABLES=4 SIZE=10000 bench/sysbench-floor.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-4}
DURATION=${DURATION:-6}
THREADS=${THREADS:-4}
TABLES=${TABLES:-4}
SIZE=${SIZE:-10000}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-3306}
cargo build --release --quiet -p txbench
cargo build --release --quiet -p txbench-engines --example my_floor
bin=$PWD/target/release/txbench
floor=$PWD/target/release/examples/my_floor
url="mysql://root@$HOST:$PORT/txbench_peers"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mysql -h "$HOST" -P "$PORT" -u root -e "DROP DATABASE IF EXISTS txbench_peers; CREATE DATABASE txbench_peers"
"$bin" sysbench load --db "$url" --tables "$TABLES" --table-size "$SIZE" >/dev/null 2>&1
echo "== $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD)"
echo "== oltp_read_write one statement a round trip, $TABLES tables of $SIZE rows, $THREADS clients, ${DURATION} s, $ROUNDS rounds"
server=$(pgrep -x mariadbd || pgrep -x mysqld)
ticks=$(getconf CLK_TCK)
server_cpu() { awk '{ print $14 + $15 }' "/proc/$server/stat"; }
. bench/floor_lib.sh
for round in $(seq "$ROUNDS"); do
    before=$(server_cpu)
    /usr/bin/time -f "%U %S" -o "$work/cpu" sysbench oltp_read_write --db-driver=mysql --mysql-host="$HOST" \
        --mysql-port="$PORT" --mysql-user=root --mysql-db=txbench_peers --tables="$TABLES" --table-size="$SIZE" \
        --rand-type=uniform --threads="$THREADS" --time="$DURATION" run >"$work/out" 2>&1
    n=$(sed -n 's/.*transactions: *\([0-9]*\).*/\1/p' "$work/out")
    echo "round $round sysbench: $(line "$work/cpu" "$n" $(($(server_cpu) - before)))"
    rm -rf "$work/results"
    before=$(server_cpu)
    /usr/bin/time -f "%U %S" -o "$work/cpu" "$bin" sysbench run --db "$url" --script oltp_read_write \
        --tables "$TABLES" -t "$THREADS" -d "${DURATION}s" --warmup 0s --round-trips statement -q --no-report \
        --results "$work/results" >/dev/null 2>&1
    n=$(committed "$work/results")
    echo "round $round txbench --round-trips statement: $(line "$work/cpu" "$n" $(($(server_cpu) - before)))"
    for mode in polled threads; do
        before=$(server_cpu)
        /usr/bin/time -f "%U %S" -o "$work/cpu" "$floor" "$HOST:$PORT" txbench_peers "$THREADS" "$DURATION" \
            "$TABLES" "$SIZE" $([ $mode = threads ] && echo threads || true) >"$work/out"
        n=$(sed -n 's/^transactions \([0-9]*\) .*/\1/p' "$work/out")
        echo "round $round floor, $mode: $(line "$work/cpu" "$n" $(($(server_cpu) - before)))"
    done
done
mysql -h "$HOST" -P "$PORT" -u root -e "DROP DATABASE txbench_peers"
