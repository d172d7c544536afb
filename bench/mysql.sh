#!/usr/bin/env bash
# TPC-C on MySQL-wire databases: the local MariaDB (load with 2 threads, tpmC with
# --wait none at 1 and 4 warehouses, client CPU per 1,000 transactions), and the
# 3-node Galera cluster of scripts/galera-cluster.sh with and without affinity.
#
#   MYSQL=mysql://root@127.0.0.1:3306 DURATION=60s bench/mysql.sh
#   GALERA=0 bench/mysql.sh        # the single server only
set -euo pipefail
cd "$(dirname "$0")/.."
MYSQL=${MYSQL:-mysql://root@127.0.0.1:3306}
DURATION=${DURATION:-60s}
GALERA=${GALERA:-1}
cargo build --release --quiet
bin=target/release/txbench
hostport=${MYSQL#mysql://*@}
admin() { mariadb -h "${hostport%:*}" -P "${hostport#*:}" -uroot -e "$1"; }

# One run: prints tpmC, txn/s and the client's CPU (user + sys) per 1,000 transactions.
run() {
    local label=$1; shift
    out=$( { /usr/bin/time -f "cpu %U %S" "$bin" tpcc run "$@" --duration "$DURATION" --warmup 5s \
        --wait none --no-results -q; } 2>&1 )
    tpmc=$(echo "$out" | awk '/tpmC/ {print $2}')
    tps=$(echo "$out" | awk '/throughput/ {print $2}' | tr -d ,)
    retries=$(echo "$out" | awk '/^(New-Order|Payment|Order-Status|Delivery|Stock-Level) / {s += $(NF-1)} END {print s}')
    errors=$(echo "$out" | awk '/^(New-Order|Payment|Order-Status|Delivery|Stock-Level) / {s += $NF} END {print s}')
    read -r user sys <<<"$(echo "$out" | awk '/^cpu/ {print $2, $3}')"
    secs=$(echo "$out" | awk '/s measured/ {for (i=1;i<=NF;i++) if ($i=="s") print $(i-1)}' | head -1)
    per1000=$(python3 -c "print(f'{($user + $sys) / ($tps * ($secs + 5)) * 1000:.3f}')")
    echo "$label: tpmC $tpmc, $tps txn/s, retries $retries, errors $errors, client CPU $per1000 s per 1000 txn"
}

echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), $(admin 'SELECT VERSION()' | tail -1)"
admin "DROP DATABASE IF EXISTS txbench_bench; CREATE DATABASE txbench_bench"
db="$MYSQL/txbench_bench"
for w in 1 4; do
    "$bin" tpcc load --db "$db" --warehouses "$w" --threads 2 --drop
    run "mariadb warehouses $w terminals $((w * 4))" --db "$db" --terminals $((w * 4))
done
admin "DROP DATABASE IF EXISTS txbench_bench"

if [ "$GALERA" = 1 ]; then
    scripts/galera-cluster.sh up >/dev/null
    mapfile -t nodes < <(scripts/galera-cluster.sh status)
    dbs=()
    for n in "${nodes[@]}"; do dbs+=(--db "$n"); done
    for w in 1 4; do
        "$bin" tpcc load --db "${nodes[0]}" --warehouses "$w" --threads 2 --drop
        for affinity in off warehouse; do
            run "galera 3 nodes warehouses $w terminals $((w * 6)) affinity $affinity" "${dbs[@]}" \
                --terminals $((w * 6)) --connections $((w * 6)) --affinity "$affinity" --max-retries 20
        done
    done
    "$bin" tpcc clean --db "${nodes[0]}"
fi
