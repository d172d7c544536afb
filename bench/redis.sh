#!/usr/bin/env bash
# YCSB on Redis beside redis-benchmark, alternating, the same connections:
# throughput, p50/p99 as each reports them, and the client's and the
# server's CPU per operation of each run.
#
#   RECORDS=20000 DURATION=10 CONNECTIONS=8 ROUNDS=2 bench/redis.sh
#   BIN=/path/to/other/txbench bench/redis.sh   # another build of txbench
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=${RECORDS:-20000}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-8}
ROUNDS=${ROUNDS:-2}
WORKLOADS=${WORKLOADS:-"c a b f"}
REDIS=${REDIS:-redis://127.0.0.1:6379/12}
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet
    BIN=$PWD/target/release/txbench
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

server_cpu() { redis-cli -u "$REDIS" INFO cpu | awk -F: '/^used_cpu_(user|sys):/ {s += $2} END {print s}'; }
# us of CPU per operation: $1 seconds over $2 operations.
per_op() { awk -v s="$1" -v n="$2" 'BEGIN {printf "%.1f", s * 1e6 / n}'; }

txbench_run() {
    local w=$1 before after ops
    before=$(server_cpu)
    /usr/bin/time -f "%U %S" -o "$out/time" "$BIN" ycsb run --workload "$w" --db "$REDIS" \
        --records "$RECORDS" -t "$CONNECTIONS" --duration "${DURATION}s" --warmup 0s \
        --no-results >"$out/run" 2>&1
    after=$(server_cpu)
    ops=$(awk '$1 == "throughput" {gsub(",", "", $2); print $2; exit}' "$out/run")
    local n client
    n=$(awk -v o="$ops" -v d="$DURATION" 'BEGIN {printf "%d", o * d}')
    client=$(awk '{print $1 + $2}' "$out/time")
    printf '  txbench ycsb %s: %s ops/s, client %s us/op, server %s us/op; %s\n' "$w" "$ops" \
        "$(per_op "$client" "$n")" "$(per_op "$(echo "$after - $before" | bc)" "$n")" \
        "$(awk '$1 == "operation" {t = 1; next} t && NF == 0 {exit} t {printf "%s p50 %s p99 %s ms ", $1, $6, $10}' "$out/run")"
}

peer_run() {
    local test=$1 n before after client
    n=$(( 60000 * DURATION ))
    before=$(server_cpu)
    /usr/bin/time -f "%U %S" -o "$out/time" redis-benchmark -h 127.0.0.1 -p 6379 --dbnum 12 \
        -t "$test" -c "$CONNECTIONS" -d 100 -r "$RECORDS" -n "$n" -q >"$out/peer" 2>&1
    after=$(server_cpu)
    client=$(awk '{print $1 + $2}' "$out/time")
    local rps
    rps=$(grep -Eo '[0-9.]+ requests per second' "$out/peer" | awk '{print $1}' | head -1)
    printf '  redis-benchmark -t %s -c %s -d 100: %s req/s, client %s us/req, server %s us/req; %s\n' \
        "$test" "$CONNECTIONS" "$rps" "$(per_op "$client" "$n")" \
        "$(per_op "$(echo "$after - $before" | bc)" "$n")" "$(grep -Eo 'p50=[0-9.]+ msec' "$out/peer" | head -1)"
}

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
"$BIN" ycsb load --db "$REDIS" --records "$RECORDS" --drop >/dev/null
for r in $(seq "$ROUNDS"); do
    echo "round $r:"
    for w in $WORKLOADS; do txbench_run "$w"; done
    peer_run get
    peer_run set
done
echo "== load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
