#!/usr/bin/env bash
# Shards on separate network hosts against one database, next to the same
# total run from one host, alternated in one sitting. The hosts are network
# namespaces on this machine (scripts/hosts.sh): the database host runs a
# PostgreSQL cluster of the bench's own behind a delaying TCP proxy (DELAY ±
# JITTER each way: the kernel here has no netem), the clients c0..c2 reach it
# over the bridge. Each pair: one host (c0) driving all WAREHOUSES with
# 3 x TERMINALS terminals, then 3 shards (c0, c1, c2) of TERMINALS each for
# one --start-at, merged. Prints tpmC, p50/p99 per type and each process's
# CPU. IMAGE=localhost/txbench runs the clients from the image with podman
# (--network ns:...), else this checkout's build (PROFILE, default release).
# Needs root.
#
#   WAREHOUSES=6 TERMINALS=4 DURATION=30s PAIRS=2 bench/hosts.sh
set -euo pipefail
cd "$(dirname "$0")/.."
WAREHOUSES=${WAREHOUSES:-6}
TERMINALS=${TERMINALS:-4}
DURATION=${DURATION:-30s}
PAIRS=${PAIRS:-2}
DELAY=${DELAY:-1ms}
JITTER=${JITTER:-250us}
IMAGE=${IMAGE:-}
PORT=54441
VERSION=$(ls /etc/postgresql | sort -n | tail -1)
export HOSTS_PREFIX=txbb
PROFILE=${PROFILE:-release}
cargo build --profile "$PROFILE" --quiet -p txbench -p txbench-test-support
bin=$PWD/target/$PROFILE/txbench
work=$(mktemp -d)
chmod 777 "$work" # the image runs as uid 10001
cleanup() {
    [ -n "${proxy:-}" ] && kill "$proxy" 2>/dev/null || true
    pg_dropcluster --stop "$VERSION" txbench_bench_hosts 2>/dev/null || true
    scripts/hosts.sh down
    rm -rf "$work"
}
trap cleanup EXIT
echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $WAREHOUSES warehouses, links $DELAY ± $JITTER each way, ${IMAGE:-the release build}"

scripts/hosts.sh up db c0 c1 c2 >/dev/null
pg_dropcluster --stop "$VERSION" txbench_bench_hosts 2>/dev/null || true
pg_createcluster "$VERSION" txbench_bench_hosts -p "$PORT" -- --auth=trust >/dev/null
scripts/hosts.sh exec db pg_ctlcluster --skip-systemctl-redirect "$VERSION" txbench_bench_hosts start
scripts/hosts.sh exec db psql -qh 127.0.0.1 -p "$PORT" -U postgres -c "CREATE DATABASE t"
scripts/hosts.sh exec db "$bin" tpcc load --db "postgres://postgres@127.0.0.1:$PORT/t" \
    --warehouses "$WAREHOUSES" >/dev/null
scripts/hosts.sh exec db "target/$PROFILE/delay-proxy" 10.213.0.1:5432 "127.0.0.1:$PORT" "$DELAY" "$JITTER" &
proxy=$!
sleep 1

# Where a client writes its results: $work, as the container sees it.
out=$work
[ -n "$IMAGE" ] && out=/work/out

# client HOST ARGS...: txbench on HOST.
client() {
    local host=$1
    shift
    if [ -n "$IMAGE" ]; then
        podman --runtime runc --cgroup-manager cgroupfs run --rm --quiet \
            --network "ns:/run/netns/$HOSTS_PREFIX-$host" \
            --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \
            -v "$work:/work/out" "$IMAGE" "$@"
    else
        ip netns exec "$HOSTS_PREFIX-$host" "$bin" "$@"
    fi
}

run_args() {
    echo tpcc run --db postgres://postgres@10.213.0.1:5432/t --warehouses "$WAREHOUSES" \
        --wait none --warmup 5s --duration "$DURATION" -q
}

# shows NAME DIR: a run's (or merge's) figures.
shows() {
    python3 - "$1" "$2" <<'PY'
import json, sys
name, d = sys.argv[1], sys.argv[2]
s = json.load(open(d + "/summary.json"))
tpmc = next(m["value"] for m in s["metrics"] if m["name"] == "tpmC")
types = " ".join(f"{t['key']} {t['latency_ms']['p50']:.1f}/{t['latency_ms']['p99']:.1f}"
                 for t in s["transactions"])
cpu = [p["cpu_secs"] for p in s.get("parts", [])] or [s["cpu"]["process_secs"]]
print(f"{name}: tpmC {tpmc:,.0f}; p50/p99 ms {types}; client CPU s "
      + " + ".join(f"{c:.1f}" for c in cpu))
PY
}

for i in $(seq 1 "$PAIRS"); do
    # shellcheck disable=SC2046
    client c0 $(run_args) --terminals $((3 * TERMINALS)) --results "$out/one-$i" >/dev/null || true
    shows "pair $i, one host, $((3 * TERMINALS)) terminals" "$work/one-$i"/*
    start=$(date -u -d '+5 sec' +%Y-%m-%dT%H:%M:%SZ)
    shards=()
    for s in 0 1 2; do
        # shellcheck disable=SC2046
        client "c$s" $(run_args) --terminals "$TERMINALS" --shards 3 --shard-index "$s" \
            --start-at "$start" --results "$out/shards-$i" >/dev/null &
        shards+=($!)
    done
    wait "${shards[@]}" || true
    "$bin" merge "$work/shards-$i"/*-shard*of3 -o "$work/merged-$i" >/dev/null
    shows "pair $i, 3 hosts, $TERMINALS terminals each, merged" "$work/merged-$i"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
