# Sourced by bench/pgbench-floor.sh and bench/sysbench-floor.sh: one run's
# line, and the transactions a txbench run finished.

# "<tps> tps, CPU a transaction: user, system, total; server" of a run of
# DURATION seconds: $1 the /usr/bin/time "%U %S" file, $2 its transactions,
# $3 the server's CPU ticks over the run (ticks: CLK_TCK).
line() {
    awk -v n="$2" -v d="$DURATION" -v s="$3" -v hz="$ticks" '{ printf "%.0f tps, CPU a transaction: user %.0f us, system %.0f us, total %.0f us; server %.0f us\n",
        n / d, $1 * 1e6 / n, $2 * 1e6 / n, ($1 + $2) * 1e6 / n, s * 1e6 / hz / n }' "$1"
}

# The transactions of the one txbench run under results directory $1
# (committed and expected rollbacks, as bench/txbench_line.py counts them).
committed() {
    python3 -c 'import glob, json, sys
[p] = glob.glob(sys.argv[1] + "/*/summary.json")
t = json.load(open(p))["transactions"][0]
print(t["committed"] + t["expected_rollbacks"])' "$1"
}
