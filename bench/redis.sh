#!/usr/bin/env bash
# YCSB on Redis beside redis-benchmark, alternating, the same connections:
# throughput, p50/p99 as each reports them, and the client's and the
# server's CPU per operation of each run. redis-benchmark runs YCSB's own
# commands on a copy of the same records (`peer:` and the key in 12 digits,
# as its __rand_int__ writes keys): a read HMGET of the key and every field,
# an update HSET of one field, and A's half-and-half as two redis-benchmark
# processes at once, half the connections each; GET and SET of 100 bytes too.
# Latencies as each reports them (redis-benchmark: its CSV's p50 and p99).
#
#   RECORDS=20000 DURATION=10 CONNECTIONS=8 ROUNDS=2 bench/redis.sh
#   BIN=/path/to/other/txbench bench/redis.sh   # another build of txbench
#   PEERS="hmget hset mixed get set" WORKLOADS="c a b f" bench/redis.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=${RECORDS:-20000}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-8}
ROUNDS=${ROUNDS:-2}
WORKLOADS=${WORKLOADS:-"c a b f"}
PEERS=${PEERS:-"hmget hset mixed get set"}
REDIS=${REDIS:-redis://127.0.0.1:6379/12}
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet
    BIN=$PWD/target/release/txbench
fi
out=$(mktemp -d)
drop_copy() {
    redis-cli -u "$REDIS" EVAL "local n = 0
    for _, k in ipairs(redis.call('KEYS', 'peer:*')) do n = n + redis.call('DEL', k) end
    return n" 0 >/dev/null
}
trap 'rm -rf "$out"; drop_copy' EXIT

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

# The arguments of redis-benchmark for peer run $1 (its command, or -t).
peer_args() {
    local fields="ycsb_key field0 field1 field2 field3 field4 field5 field6 field7 field8 field9"
    case $1 in
        hmget) echo "HMGET peer:__rand_int__ $fields" ;;
        hset) echo "HSET peer:__rand_int__ field3 $(printf 'v%.0s' $(seq 100))" ;;
        get | set) echo "-t $1 -d 100" ;;
    esac
}

# One redis-benchmark process of $2 connections running peer $1 for $3
# requests, its output in $out/peer.$1 and its CPU in $out/time.$1.
peer_process() {
    # shellcheck disable=SC2046 # the arguments are words
    /usr/bin/time -f "%U %S" -o "$out/time.$1" redis-benchmark -h 127.0.0.1 -p 6379 --dbnum 12 \
        -c "$2" -r "$RECORDS" -n "$3" --csv $(peer_args "$1") >"$out/peer.$1" 2>&1
}

# Its CSV line: "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",
# "p95_latency_ms","p99_latency_ms","max_latency_ms".
csv_field() { awk -F'","' -v f="$2" 'NR == 2 {gsub("\"", "", $f); print $f}' "$out/peer.$1"; }
rps_of() { csv_field "$1" 2; }
p50_of() { echo "p50 $(csv_field "$1" 5) p99 $(csv_field "$1" 7) ms"; }
cpu_of() { awk '{print $1 + $2}' "$out/time.$1"; }

peer_run() {
    local test=$1 n before after client rps p50
    n=$(( 60000 * DURATION ))
    before=$(server_cpu)
    if [ "$test" = mixed ]; then
        # YCSB A's mix: reads and updates at once, half the connections each.
        peer_process hmget $(( CONNECTIONS / 2 )) $(( n / 2 )) &
        peer_process hset $(( CONNECTIONS / 2 )) $(( n / 2 ))
        wait
        client=$(echo "$(cpu_of hmget) + $(cpu_of hset)" | bc)
        rps=$(echo "$(rps_of hmget) + $(rps_of hset)" | bc)
        p50="hmget $(p50_of hmget), hset $(p50_of hset)"
    else
        peer_process "$test" "$CONNECTIONS" "$n"
        client=$(cpu_of "$test")
        rps=$(rps_of "$test")
        p50=$(p50_of "$test")
    fi
    after=$(server_cpu)
    printf '  redis-benchmark %s -c %s: %s req/s, client %s us/req, server %s us/req; %s\n' \
        "$test" "$CONNECTIONS" "$rps" "$(per_op "$client" "$n")" \
        "$(per_op "$(echo "$after - $before" | bc)" "$n")" "$p50"
}

# redis-benchmark's copy of the records, under the keys it writes.
copy_records() {
    redis-cli -u "$REDIS" EVAL "for i = 0, tonumber(ARGV[1]) - 1 do
        local row = redis.call('HGETALL', 'usertable:' .. i)
        if #row > 0 then redis.call('HSET', string.format('peer:%012d', i), unpack(row)) end
    end
    return 1" 0 "$RECORDS" >/dev/null
}

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
"$BIN" ycsb load --db "$REDIS" --records "$RECORDS" --drop >/dev/null
copy_records
for r in $(seq "$ROUNDS"); do
    echo "round $r:"
    for w in $WORKLOADS; do txbench_run "$w"; done
    for p in $PEERS; do peer_run "$p"; done
done
echo "== load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
