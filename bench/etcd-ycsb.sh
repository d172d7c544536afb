#!/usr/bin/env bash
# YCSB on etcd beside etcd's own Go client (bench/etcd-peer), alternating,
# on one member and on three (scripts/etcd-cluster.sh): throughput, p50/p99
# as each reports them, and the client's CPU per operation.
#
#   MEMBERS="1 3" RECORDS=20000 DURATION=10 CONNECTIONS=8 ROUNDS=2 bench/etcd-ycsb.sh
#   BIN=/path/to/txbench bench/etcd-ycsb.sh   # a build with the etcd feature
#   DISTRIBUTION=uniform bench/etcd-ycsb.sh    # txbench's keys uniform, as the peer's are
#
# Needs Debian's etcd-server, golang-go and golang-etcd-server-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
MEMBERS=${MEMBERS:-"1 3"}
RECORDS=${RECORDS:-20000}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-8}
ROUNDS=${ROUNDS:-2}
# txbench's request distribution: YCSB's own (zipfian) unless set.
DISTRIBUTION=${DISTRIBUTION:-}
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet --features etcd
    BIN=$PWD/target/release/txbench
fi
out=$(mktemp -d)
export ETCD_DIR=$out/cluster
trap 'scripts/etcd-cluster.sh down >/dev/null 2>&1 || true; rm -rf "$out"' EXIT
GOPATH=/usr/share/gocode GO111MODULE=off GOCACHE=$out/gocache \
    go build -o "$out/etcd-peer" ./bench/etcd-peer

per_op() { awk -v s="$1" -v n="$2" 'BEGIN {printf "%.1f", s * 1e6 / n}'; }
cpu() { awk '{print $1 + $2}' "$out/time"; }

txbench_run() {
    local w=$1 ops n
    /usr/bin/time -f "%U %S" -o "$out/time" "$BIN" ycsb run --workload "$w" --db "$URL" \
        --records "$RECORDS" -t "$CONNECTIONS" --duration "${DURATION}s" --warmup 0s \
        --no-results ${DISTRIBUTION:+--distribution "$DISTRIBUTION"} >"$out/run" 2>&1
    ops=$(awk '$1 == "throughput" {gsub(",", "", $2); print $2; exit}' "$out/run")
    n=$(awk -v o="$ops" -v d="$DURATION" 'BEGIN {printf "%d", o * d}')
    printf '  txbench ycsb %s: %s ops/s, client %s us/op; %s\n' "$w" "$ops" "$(per_op "$(cpu)" "$n")" \
        "$(awk '$1 == "operation" {t = 1; next} t && NF == 0 {exit} t {printf "%s p50 %s p99 %s ms ", $1, $6, $10}' "$out/run")"
}

peer_run() {
    local op=$1 n
    /usr/bin/time -f "%U %S" -o "$out/time" "$out/etcd-peer" -endpoints "$ENDPOINTS" -op "$op" \
        -clients "$CONNECTIONS" -conns "$CONNECTIONS" -keys "$RECORDS" -duration "${DURATION}s" >"$out/peer"
    n=$(awk '{print $2}' "$out/peer")
    printf '  clientv3 %s: %s ops/s, client %s us/op; p50 %s p99 %s ms\n' "$op" \
        "$(awk '{print $4}' "$out/peer")" "$(per_op "$(cpu)" "$n")" "$(awk '{print $6}' "$out/peer")" \
        "$(awk '{print $9}' "$out/peer")"
}

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ);" \
    "txbench's keys ${DISTRIBUTION:-zipfian}"
for m in $MEMBERS; do
    case $m in
        1) export ETCD_PORTS="2379" ;;
        3) export ETCD_PORTS="2379 22379 32379" ;;
        *) echo "MEMBERS: 1 or 3, not $m" >&2; exit 2 ;;
    esac
    scripts/etcd-cluster.sh up >/dev/null
    ENDPOINTS=$(scripts/etcd-cluster.sh status | paste -sd, -)
    URL="etcd://$ENDPOINTS"
    "$BIN" ycsb load --db "$URL" --records "$RECORDS" --drop >/dev/null
    echo "$m member(s), $CONNECTIONS connections:"
    for r in $(seq "$ROUNDS"); do
        echo " round $r:"
        txbench_run c
        peer_run get
        txbench_run a
        peer_run a
    done
    scripts/etcd-cluster.sh down >/dev/null
done
echo "== load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
