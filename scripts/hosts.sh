#!/usr/bin/env bash
# Network hosts on one machine, for txbench's multi-host test and benchmark:
# a network namespace per host, each with one interface (eth0) on a bridge
# that lives in a namespace of its own, so the machine's own network is never
# touched. From iproute2; needs root.
#
#   scripts/hosts.sh up NAME...    make hosts NAME... (the first gets .1, the
#                                  next .2 ...); prints "NAME ADDRESS" a line
#   scripts/hosts.sh exec NAME CMD...  run CMD on host NAME
#   scripts/hosts.sh cut NAME SECS     take NAME's link down for SECS seconds
#   scripts/hosts.sh down          remove every host and the bridge
#
# HOSTS_PREFIX (default txbh) names the namespaces ($HOSTS_PREFIX-NAME and
# $HOSTS_PREFIX-switch); HOSTS_NET (default 10.213.0) is the /24 they share.
set -euo pipefail
PREFIX=${HOSTS_PREFIX:-txbh}
NET=${HOSTS_NET:-10.213.0}
SWITCH=$PREFIX-switch

ns() { echo "$PREFIX-$1"; }

up() {
    down
    ip netns add "$SWITCH"
    ip -n "$SWITCH" link add br0 type bridge
    ip -n "$SWITCH" link set br0 up
    local n=1
    for host in "$@"; do
        ip netns add "$(ns "$host")"
        # One end on the bridge, the other the host's eth0.
        ip -n "$SWITCH" link add "port-$host" type veth peer name eth0 netns "$(ns "$host")"
        ip -n "$SWITCH" link set "port-$host" master br0 up
        ip -n "$(ns "$host")" addr add "$NET.$n/24" dev eth0
        ip -n "$(ns "$host")" link set eth0 up
        ip -n "$(ns "$host")" link set lo up
        echo "$host $NET.$n"
        n=$((n + 1))
    done
}

down() {
    local name
    for name in $(ip netns list | awk '{print $1}'); do
        case "$name" in "$PREFIX"-*) ip netns del "$name" ;; esac
    done
}

case "${1:-}" in
    up) shift; up "$@" ;;
    exec) shift; host=$1; shift; exec ip netns exec "$(ns "$host")" "$@" ;;
    cut)
        ip -n "$(ns "$2")" link set eth0 down
        sleep "$3"
        ip -n "$(ns "$2")" link set eth0 up
        ;;
    down) down ;;
    *) echo "usage: $0 up NAME... | exec NAME CMD... | cut NAME SECS | down" >&2; exit 2 ;;
esac
