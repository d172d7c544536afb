#!/usr/bin/env bash
# A 3-node MariaDB Galera cluster on loopback, for txbench's distributed tests
# and benchmarks, from Debian's packages (mariadb-server, galera-4). It lives in
# a directory of its own and never touches the machine's own MariaDB.
#
#   scripts/galera-cluster.sh up       start it (bootstrap node 1, then join 2 and 3)
#   scripts/galera-cluster.sh status   one mysql:// URL per running node, one a line
#   scripts/galera-cluster.sh down     stop it and remove its directory
#   scripts/galera-cluster.sh kill N   kill node N at once (SIGKILL), as a crash
#   scripts/galera-cluster.sh start N  start node N again; returns once it rejoined, synced
#
# GALERA_DIR (default /tmp/txbench-galera), GALERA_BASE_PORT (default 3307:
# nodes on 3307, 3308, 3309) and GALERA_REPL_PORT (default 4567: Galera
# replication on 4567 + 10 * (n - 1)) move it.
set -euo pipefail
DIR=${GALERA_DIR:-/tmp/txbench-galera}
BASE_PORT=${GALERA_BASE_PORT:-3307}
REPL_PORT=${GALERA_REPL_PORT:-4567}
NODES=3
PROVIDER=${GALERA_PROVIDER:-/usr/lib/galera/libgalera_smm.so}
# As root, the servers run as the mysql user (the rsync state transfer's daemon
# cannot write into root's directories).
USER_OPT=()
[ "$(id -u)" = 0 ] && USER_OPT=(--user=mysql)

port() { echo $((BASE_PORT + $1 - 1)); }
gport() { echo $((REPL_PORT + 10 * ($1 - 1))); }
sock() { echo "$DIR/node$1/mysqld.sock"; }

running() { mariadb-admin --socket="$(sock "$1")" -uroot ping >/dev/null 2>&1; }

config() {
    local n=$1 peers=""
    for i in $(seq 1 $NODES); do peers="${peers:+$peers,}127.0.0.1:$(gport "$i")"; done
    cat > "$DIR/node$n/my.cnf" <<CNF
[mariadbd]
datadir=$DIR/node$n/data
socket=$(sock "$n")
port=$(port "$n")
bind-address=127.0.0.1
pid-file=$DIR/node$n/mariadbd.pid
log-error=$DIR/node$n/error.log
skip-name-resolve
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
innodb_buffer_pool_size=256M
innodb_flush_log_at_trx_commit=2
max_connections=500
wsrep_on=ON
wsrep_provider=$PROVIDER
wsrep_cluster_name=txbench
wsrep_cluster_address=gcomm://$peers
wsrep_node_name=node$n
wsrep_node_address=127.0.0.1:$(gport "$n")
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:$(gport "$n");ist.recv_addr=127.0.0.1:$(($(gport "$n") + 1))"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:$(($(gport "$n") + 2))
CNF
}

start() {
    local n=$1; shift
    setsid mariadbd --defaults-file="$DIR/node$n/my.cnf" "${USER_OPT[@]}" "$@" \
        >>"$DIR/node$n/stdout.log" 2>&1 < /dev/null &
    for _ in $(seq 1 120); do
        if running "$n"; then return 0; fi
        sleep 0.5
    done
    echo "galera-cluster: node $n did not start; see $DIR/node$n/error.log" >&2
    tail -20 "$DIR/node$n/error.log" >&2 || true
    return 1
}

up() {
    command -v mariadbd >/dev/null || { echo "galera-cluster: needs mariadb-server" >&2; exit 1; }
    [ -f "$PROVIDER" ] || { echo "galera-cluster: needs galera-4 ($PROVIDER)" >&2; exit 1; }
    if running 1; then echo "galera-cluster: already up"; status; return; fi
    rm -rf "$DIR"
    for n in $(seq 1 $NODES); do
        mkdir -p "$DIR/node$n/data"
        config "$n"
    done
    chmod 755 "$DIR"
    if [ "$(id -u)" = 0 ]; then chown -R mysql:mysql "$DIR"; fi
    mariadb-install-db --defaults-file="$DIR/node1/my.cnf" "${USER_OPT[@]}" \
        --auth-root-authentication-method=normal --skip-test-db >"$DIR/install.log" 2>&1
    start 1 --wsrep-new-cluster
    # Root over TCP without a password, as the tests use it; a database to name in URLs.
    mariadb --socket="$(sock 1)" -uroot -e "
        CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '';
        GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
        CREATE DATABASE IF NOT EXISTS test;"
    for n in $(seq 2 $NODES); do
        start "$n"
    done
    local size
    size=$(mariadb --socket="$(sock 1)" -uroot -N -e "SHOW STATUS LIKE 'wsrep_cluster_size'" | awk '{print $2}')
    if [ "$size" != "$NODES" ]; then
        echo "galera-cluster: cluster size $size, expected $NODES" >&2
        exit 1
    fi
    status
}

status() {
    for n in $(seq 1 $NODES); do
        if running "$n"; then echo "mysql://root@127.0.0.1:$(port "$n")/test"; fi
    done
}

down() {
    for n in $(seq $NODES -1 1); do
        if running "$n"; then
            mariadb-admin --socket="$(sock "$n")" -uroot shutdown || true
        fi
    done
    for n in $(seq 1 $NODES); do
        if [ -f "$DIR/node$n/mariadbd.pid" ]; then
            kill "$(cat "$DIR/node$n/mariadbd.pid")" 2>/dev/null || true
        fi
    done
    rm -rf "$DIR"
}

# Kill node N with SIGKILL and wait until it is gone.
kill_node() {
    local pid
    pid=$(cat "$DIR/node$1/mariadbd.pid")
    kill -KILL "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
}

# Start node N again after a crash: its position recovered from InnoDB first
# (mariadbd --wsrep-recover, as mysqld_safe does), so that it catches up by an
# incremental transfer from a peer's cache instead of a full copy, which
# would block the donor; returns once the node is synced.
rejoin() {
    local n=$1 pos
    rm -f "$DIR/node$n/recover.log"
    mariadbd --defaults-file="$DIR/node$n/my.cnf" "${USER_OPT[@]}" --wsrep-recover \
        --log-error="$DIR/node$n/recover.log" >/dev/null 2>&1 || true
    pos=$(grep -o 'Recovered position: [^ ]*' "$DIR/node$n/recover.log" 2>/dev/null | tail -1 | awk '{print $3}')
    start "$n" ${pos:+"--wsrep_start_position=$pos"}
    for _ in $(seq 1 240); do
        if [ "$(mariadb --socket="$(sock "$n")" -uroot -N -e "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | awk '{print $2}')" = Synced ]; then
            return 0
        fi
        sleep 0.25
    done
    echo "galera-cluster: node $n did not sync; see $DIR/node$n/error.log" >&2
    return 1
}

case "${1:-}" in
    up) up ;;
    status) status ;;
    down) down ;;
    kill) kill_node "${2:?node number}" ;;
    start) rejoin "${2:?node number}" ;;
    *) echo "usage: $0 up|status|down|kill N|start N" >&2; exit 2 ;;
esac
