#!/usr/bin/env bash
# Atomicity under certification conflicts on the 3-node Galera cluster of
# scripts/galera-cluster.sh: TPC-C at 1 warehouse, 16 terminals writing the
# same rows through the three nodes, then `tpcc check` on every node and
# `tpcc verify` of the run's acknowledged-work log. Two builds alternate run
# by run (docs/durability.md, "Galera"), on a fresh load each time.
#
#   BEFORE=/path/to/old/txbench AFTER=target/release/txbench RUNS=10 bench/galera_split.sh
#   AFTER=target/release/txbench RUNS=10 bench/galera_split.sh     # one build only
#
# Prints one line per run (build, committed, retries, check on each node,
# verify) and a count per build of runs in which some node failed check.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10}
DURATION=${DURATION:-30s}
AFTER=${AFTER:-}
if [ -z "$AFTER" ]; then
    cargo build --release --quiet
    AFTER=target/release/txbench
fi
builds=()
[ -n "${BEFORE:-}" ] && builds+=("before=$BEFORE")
builds+=("after=$AFTER")

scripts/galera-cluster.sh up >/dev/null
mapfile -t nodes < <(scripts/galera-cluster.sh status)
base=${nodes[0]%/*}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A failed=()

echo "== $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)," \
    "$(mariadb -h 127.0.0.1 -P "${base##*:}" -uroot -N -e 'SELECT VERSION()')"
for run in $(seq 1 "$RUNS"); do
    for build in "${builds[@]}"; do
        label=${build%%=*}
        bin=${build#*=}
        db=txbench_split
        urls=()
        for n in "${nodes[@]}"; do urls+=(--db "${n%/*}/$db"); done
        "$bin" tpcc load --db "${base}/$db" --warehouses 1 --threads 2 --drop >/dev/null
        dir="$work/$label-$run"
        mkdir -p "$dir"
        (cd "$dir" && "$bin" tpcc run "${urls[@]}" --affinity off --duration "$DURATION" --warmup 2s \
            --terminals 16 --connections 12 --max-retries 20 --ack-log -q >run.log 2>&1)
        summary=$(ls -d "$dir"/results/*/)
        read -r committed retries < <(python3 -c "import json, sys
t = json.load(open(sys.argv[1] + 'summary.json'))['transactions']
print(sum(x['committed'] for x in t), sum(x['retries'] for x in t))" "$summary")
        checks=""
        bad=0
        for n in "${nodes[@]}"; do
            if "$bin" tpcc check --db "${n%/*}/$db" >"$dir/check.log" 2>&1; then
                checks+=" PASS"
            else
                checks+=" FAIL($(grep -c '^FAIL' "$dir/check.log"))"
                bad=1
            fi
        done
        if "$bin" tpcc verify --db "${base}/$db" "$summary" >"$dir/verify.log" 2>&1; then
            verify=PASS
        else
            verify="FAIL: $(tail -1 "$dir/verify.log")"
        fi
        failed[$label]=$(( ${failed[$label]:-0} + bad ))
        echo "run $run $label: committed $committed, retries $retries, check on the nodes:$checks, verify $verify"
    done
done
for build in "${builds[@]}"; do
    label=${build%%=*}
    echo "$label: $((${failed[$label]:-0})) of $RUNS runs with a node failing check"
done
echo "== load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
"${builds[-1]#*=}" tpcc clean --db "${base}/txbench_split" >/dev/null
