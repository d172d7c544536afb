#!/usr/bin/env bash
# A 3-member etcd cluster (Raft) on loopback, for txbench's replicated
# key-value tests and benchmarks, from Debian's etcd-server package. It lives
# in a directory of its own and never touches an etcd of the machine.
#
#   scripts/etcd-cluster.sh up           start the members not running (all, or one killed before); returns once the cluster has a leader
#   scripts/etcd-cluster.sh status       the client endpoints of the running members, one a line
#   scripts/etcd-cluster.sh leader       the client endpoint of the current leader
#   scripts/etcd-cluster.sh kill-leader  kill the leader at once (SIGKILL), as a crash; prints its endpoint
#   scripts/etcd-cluster.sh down         stop every member and remove the directory
#
# Members 1 to 3 listen for clients on 127.0.0.1:2379, 22379 and 32379, and
# for their peers on the next port (2380, 22380, 32380). ETCD_PORTS (the
# client ports, space separated) sets their number and ports: one port makes
# a single-member cluster. ETCD_DIR (default /tmp/txbench-etcd) moves the
# data; ETCD, the server binary. Tests run clusters of their own this way.
# Every write keeps the value it replaced until a compaction: history older
# than 5 minutes is compacted away, and the database may grow to 8 GiB
# (etcd's largest suggested quota; its default, 2 GiB, is less than a
# million 1 KB YCSB records with their history).
set -euo pipefail
DIR=${ETCD_DIR:-/tmp/txbench-etcd}
ETCD=${ETCD:-/usr/bin/etcd}
read -r -a PORTS <<<"${ETCD_PORTS:-2379 22379 32379}"
MEMBERS=${#PORTS[@]}

port() { echo "${PORTS[$(($1 - 1))]}"; }
peer_port() { echo $(($(port "$1") + 1)); }
endpoint() { echo "127.0.0.1:$(port "$1")"; }
pidfile() { echo "$DIR/member$1/etcd.pid"; }

running() {
    local pid
    pid=$(cat "$(pidfile "$1")" 2>/dev/null) || return 1
    kill -0 "$pid" 2>/dev/null
}

# The member's status through the v3 JSON gateway: its id and the leader's.
status_of() {
    curl -sf -m 2 -X POST "http://$(endpoint "$1")/v3/maintenance/status" -d '{}'
}

# The member number of the leader, as a running member sees it.
leader_member() {
    local n json leader
    for n in $(seq 1 $MEMBERS); do
        running "$n" || continue
        json=$(status_of "$n") || continue
        leader=$(echo "$json" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("leader", ""))')
        [ -n "$leader" ] || continue
        for m in $(seq 1 $MEMBERS); do
            running "$m" || continue
            if [ "$(status_of "$m" | python3 -c 'import json, sys; print(json.load(sys.stdin)["header"]["member_id"])')" = "$leader" ]; then
                echo "$m"
                return 0
            fi
        done
    done
    return 1
}

start() {
    local n=$1 cluster=""
    for i in $(seq 1 $MEMBERS); do
        cluster="${cluster:+$cluster,}member$i=http://127.0.0.1:$(peer_port "$i")"
    done
    local state=new
    [ -d "$DIR/member$n/data" ] && state=existing
    mkdir -p "$DIR/member$n"
    "$ETCD" --name "member$n" --data-dir "$DIR/member$n/data" \
        --listen-client-urls "http://$(endpoint "$n")" \
        --advertise-client-urls "http://$(endpoint "$n")" \
        --listen-peer-urls "http://127.0.0.1:$(peer_port "$n")" \
        --initial-advertise-peer-urls "http://127.0.0.1:$(peer_port "$n")" \
        --initial-cluster "$cluster" --initial-cluster-state "$state" \
        --initial-cluster-token txbench \
        --auto-compaction-mode periodic --auto-compaction-retention 5m \
        --quota-backend-bytes 8589934592 \
        >"$DIR/member$n/etcd.log" 2>&1 &
    echo $! >"$(pidfile "$n")"
}

up() {
    mkdir -p "$DIR"
    for n in $(seq 1 $MEMBERS); do
        running "$n" || start "$n"
    done
    for _ in $(seq 1 100); do
        leader_member >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    echo "etcd-cluster: no leader after 20 s; see $DIR/member*/etcd.log" >&2
    return 1
}

down() {
    for n in $(seq 1 $MEMBERS); do
        if running "$n"; then kill "$(cat "$(pidfile "$n")")" 2>/dev/null || true; fi
    done
    for n in $(seq 1 $MEMBERS); do
        for _ in $(seq 1 50); do running "$n" || break; sleep 0.1; done
        if running "$n"; then kill -9 "$(cat "$(pidfile "$n")")" 2>/dev/null || true; fi
    done
    rm -rf "$DIR"
}

case ${1:-} in
up) up ;;
status) for n in $(seq 1 $MEMBERS); do running "$n" && endpoint "$n"; done; true ;;
leader) endpoint "$(leader_member)" ;;
kill-leader)
    n=$(leader_member)
    kill -9 "$(cat "$(pidfile "$n")")"
    endpoint "$n"
    ;;
down) down ;;
*)
    sed -n '2,16p' "$0" >&2
    exit 2
    ;;
esac
