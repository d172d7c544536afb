#!/usr/bin/env bash
# Loads against the originals', alternated pair by pair, each on a database
# created for it: `pgbench -i -q -s S` against `txbench pgbench load -s S`
# (PostgreSQL) at each of SCALES, and `sysbench oltp_read_write prepare`
# against `txbench sysbench load` (MariaDB) at each of SIZES rows a table.
# Per pair the wall time of each process (/usr/bin/time; the database's
# DROP and CREATE before it are not counted), then the medians.
#
#   PAIRS=5 SCALES="1 10 50" TABLES=4 SIZES="10000 100000" bench/loads.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
SCALES=${SCALES:-1 10 50}
TABLES=${TABLES:-4}
SIZES=${SIZES:-10000 100000}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
MYHOST=${MYHOST:-127.0.0.1}
PGBENCH=${PGBENCH:-$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1)}
cargo build --release --quiet -p txbench
bin=$PWD/target/release/txbench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pg_fresh() { psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_loads WITH (FORCE)" -c "CREATE DATABASE txbench_loads"; }
my_fresh() { mysql -h "$MYHOST" -u root -e "DROP DATABASE IF EXISTS txbench_loads; CREATE DATABASE txbench_loads"; }
# The wall time of a command, in seconds.
wall() { /usr/bin/time -f "%e" -o "$work/t" "$@" >/dev/null 2>&1; cat "$work/t"; }
median() { tr ' ' '\n' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "== $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD)"
for scale in $SCALES; do
    original=() ours=()
    for _ in $(seq "$PAIRS"); do
        pg_fresh
        original+=("$(wall "$PGBENCH" -i -q -s "$scale" "$PG/txbench_loads")")
        pg_fresh
        ours+=("$(wall "$bin" pgbench load --db "$PG/txbench_loads" -s "$scale")")
    done
    echo "pgbench scale $scale: pgbench -i ${original[*]} s (median $(echo "${original[*]}" | median));" \
        "txbench pgbench load ${ours[*]} s (median $(echo "${ours[*]}" | median))"
done
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS txbench_loads WITH (FORCE)"
for size in $SIZES; do
    original=() ours=()
    for _ in $(seq "$PAIRS"); do
        my_fresh
        original+=("$(wall sysbench oltp_read_write --db-driver=mysql --mysql-host="$MYHOST" --mysql-user=root \
            --mysql-db=txbench_loads --tables="$TABLES" --table-size="$size" prepare)")
        my_fresh
        ours+=("$(wall "$bin" sysbench load --db "mysql://root@$MYHOST/txbench_loads" --tables "$TABLES" \
            --table-size "$size")")
    done
    echo "sysbench $TABLES x $size: sysbench prepare ${original[*]} s (median $(echo "${original[*]}" | median));" \
        "txbench sysbench load ${ours[*]} s (median $(echo "${ours[*]}" | median))"
done
mysql -h "$MYHOST" -u root -e "DROP DATABASE IF EXISTS txbench_loads"
