#!/usr/bin/env bash
# pgbench's tpcb-like statement by statement (one prepared statement a round
# trip), three clients alternated round by round on one database pgbench -i
# made: `pgbench -M prepared -j 1`, `txbench pgbench run --round-trips
# statement` and the floor (examples/pg_floor.rs: the same seven round trips
# from one thread polling its connections, with nothing else: no TLS, no
# library, no latency kept). Per run the throughput and the client's CPU a
# transaction, user and system apart (/usr/bin/time over the whole process),
# and the server's (the postmaster's children's user and system time over
# the run, /proc/PID/stat: the backends exit with their connections; the
# server on this machine).
# All three run without TLS (sslmode=disable), then with it (sslmode=prefer,
# what pgbench and txbench do by default when the server offers TLS; the
# floor asks for it as they do and encrypts with rustls).
#
#   ROUNDS=4 DURATION=5 CLIENTS=4 SCALE=1 bench/pgbench-floor.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-4}
DURATION=${DURATION:-5}
CLIENTS=${CLIENTS:-4}
SCALE=${SCALE:-1}
HOST=${HOST:-127.0.0.1:5432}
PGBENCH=${PGBENCH:-$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1)}
cargo build --release --quiet -p txbench
cargo build --release --quiet -p txbench-engines --example pg_floor
bin=$PWD/target/release/txbench
floor=$PWD/target/release/examples/pg_floor
db="postgres://postgres@$HOST/txbench_peers"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
psql "postgres://postgres@$HOST/postgres" -qc "DROP DATABASE IF EXISTS txbench_peers WITH (FORCE)" \
    -c "CREATE DATABASE txbench_peers"
"$PGBENCH" -i -q -s "$SCALE" "$db" >/dev/null 2>&1
echo "== $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD)"
echo "== tpcb-like one statement a round trip, scale $SCALE, $CLIENTS clients, ${DURATION} s, $ROUNDS rounds"
# "<tps> tps, user <u> system <s> total <t> us a transaction" of N transactions in the time file.
server=$(pgrep -xo postgres)
ticks=$(getconf CLK_TCK)
# The backends exit with their connections and are reaped a moment later.
server_cpu() { sleep 0.3; awk '{ print $16 + $17 }' "/proc/$server/stat"; }
. bench/floor_lib.sh
for ssl in disable prefer; do
    echo "== sslmode=$ssl"
    for round in $(seq "$ROUNDS"); do
        before=$(server_cpu)
        /usr/bin/time -f "%U %S" -o "$work/cpu" "$PGBENCH" -n -M prepared -c "$CLIENTS" -j 1 -T "$DURATION" \
            "$db?sslmode=$ssl" >"$work/out" 2>&1
        n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$work/out")
        echo "round $round pgbench -M prepared: $(line "$work/cpu" "$n" $(($(server_cpu) - before)))"
        rm -rf "$work/results"
        before=$(server_cpu)
        /usr/bin/time -f "%U %S" -o "$work/cpu" "$bin" pgbench run --db "$db?sslmode=$ssl" -t "$CLIENTS" \
            -d "${DURATION}s" --warmup 0s --round-trips statement -q --no-report --results "$work/results" >/dev/null 2>&1
        echo "round $round txbench --round-trips statement: $(line "$work/cpu" "$(committed "$work/results")" $(($(server_cpu) - before)))"
        tls=$([ "$ssl" = prefer ] && echo tls || true)
        before=$(server_cpu)
        /usr/bin/time -f "%U %S" -o "$work/cpu" "$floor" "$HOST" txbench_peers "$CLIENTS" "$DURATION" "$SCALE" $tls >"$work/out"
        n=$(sed -n 's/^transactions \([0-9]*\) .*/\1/p' "$work/out")
        echo "round $round floor: $(line "$work/cpu" "$n" $(($(server_cpu) - before)))"
    done
done
