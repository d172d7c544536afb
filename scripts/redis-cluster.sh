#!/usr/bin/env bash
# A Redis Cluster of three primaries on loopback, for txbench's sharded
# key-value tests and benchmarks, from Debian's redis-server package. It lives
# in a directory of its own and never touches a Redis of the machine.
#
#   scripts/redis-cluster.sh up       start the nodes not running; the first time, join them into a cluster (16,384 slots over the three); returns once the cluster is ok
#   scripts/redis-cluster.sh status   the nodes' addresses, one a line, and the cluster's state
#   scripts/redis-cluster.sh down     stop every node and remove the directory
#
# Nodes listen on 127.0.0.1:7001, 7002 and 7003 (REDIS_CLUSTER_PORTS, space
# separated: at least three, each a primary without replicas) and on the
# port + 10000 for the cluster bus. REDIS_CLUSTER_DIR (default
# /tmp/txbench-redis-cluster) moves their files; REDIS_SERVER and REDIS_CLI,
# the binaries. A client reaches it through any node: redis://127.0.0.1:7001.
set -euo pipefail
DIR=${REDIS_CLUSTER_DIR:-/tmp/txbench-redis-cluster}
SERVER=${REDIS_SERVER:-redis-server}
CLI=${REDIS_CLI:-redis-cli}
read -r -a PORTS <<<"${REDIS_CLUSTER_PORTS:-7001 7002 7003}"

pidfile() { echo "$DIR/$1/redis.pid"; }

running() {
    local pid
    pid=$(cat "$(pidfile "$1")" 2>/dev/null) || return 1
    kill -0 "$pid" 2>/dev/null
}

start() {
    local port=$1
    mkdir -p "$DIR/$port"
    # No snapshots or append-only file: the data is a benchmark's, loaded again
    # after a restart; the cluster's own state (nodes.conf) is kept.
    "$SERVER" --port "$port" --bind 127.0.0.1 --protected-mode no \
        --cluster-enabled yes --cluster-config-file "$DIR/$port/nodes.conf" \
        --cluster-node-timeout 5000 --dir "$DIR/$port" \
        --save "" --appendonly no --daemonize yes \
        --pidfile "$(pidfile "$port")" --logfile "$DIR/$port/redis.log"
}

# Whether the cluster answers ok with every slot served.
healthy() {
    "$CLI" -p "${PORTS[0]}" cluster info 2>/dev/null | tr -d '\r' |
        grep -qx 'cluster_state:ok'
}

wait_for() {
    local what=$1 i
    shift
    for i in $(seq 1 100); do
        if "$@"; then return 0; fi
        sleep 0.1
    done
    echo "redis-cluster: $what did not happen within 10 s (logs in $DIR)" >&2
    return 1
}

answers() { "$CLI" -p "$1" ping 2>/dev/null | grep -q PONG; }

up() {
    local port addresses=()
    for port in "${PORTS[@]}"; do
        running "$port" || start "$port"
        addresses+=("127.0.0.1:$port")
    done
    for port in "${PORTS[@]}"; do
        wait_for "node $port answering" answers "$port"
    done
    # A node that has never been joined knows only itself.
    if [ "$("$CLI" -p "${PORTS[0]}" cluster info | tr -d '\r' |
        sed -n 's/^cluster_known_nodes://p')" = 1 ]; then
        "$CLI" --cluster create "${addresses[@]}" --cluster-replicas 0 --cluster-yes >"$DIR/create.log"
    fi
    wait_for "cluster_state:ok" healthy
}

status() {
    local port
    for port in "${PORTS[@]}"; do
        if running "$port"; then echo "127.0.0.1:$port"; fi
    done
    "$CLI" -p "${PORTS[0]}" cluster info 2>/dev/null | tr -d '\r' | grep '^cluster_state:' || true
}

down() {
    local port pid
    for port in "${PORTS[@]}"; do
        pid=$(cat "$(pidfile "$port")" 2>/dev/null) || continue
        kill "$pid" 2>/dev/null || true
        while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    done
    rm -rf "$DIR"
}

case "${1:-}" in
up) up ;;
status) status ;;
down) down ;;
*)
    echo "usage: $0 up|status|down" >&2
    exit 2
    ;;
esac
