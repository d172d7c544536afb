#!/usr/bin/env python3
"""Split a run's CPU samples into "executing SQL" and "the driver".

Reads `perf script` output of a run recorded with DWARF call graphs. A sample is
SQL work when any frame of its stack is a function of SQLite's own code (the
symbol list comes from the bundled libsqlite3.a); everything else -- tokio,
channels, terminals, input generation, recording, rusqlite's glue, allocations
made by Rust code, and the kernel work those cause -- is the driver. Samples of
the loader's threads (txbench-load, txbench-gen) are left out: they are the
load, not the run.

usage: perf script -i perf.data | bench/driver_share.py SQLITE_SYMBOLS
"""
import sys
from collections import Counter


def main():
    sqlite = set(open(sys.argv[1]).read().split())
    total = sql = 0
    by_thread = Counter()
    sample = []
    comm = None

    def flush():
        nonlocal total, sql
        if comm is None or comm in ("txbench-load", "txbench-gen"):
            return
        total += 1
        is_sql = any(sym in sqlite for sym in sample)
        sql += is_sql
        by_thread[(comm, "sql" if is_sql else "driver")] += 1

    for line in sys.stdin:
        if not line.strip():
            flush()
            sample, comm = [], None
        elif not line[0].isspace():
            comm = line.split()[0]
        else:
            parts = line.split()
            if len(parts) >= 2:
                sample.append(parts[1].split("+")[0])
    flush()
    if total == 0:
        sys.exit("no samples")
    print(f"samples of the run: {total}")
    for (thread, kind), n in sorted(by_thread.items()):
        print(f"  {thread:<18} {kind:<7} {n:>7}  {100 * n / total:5.1f}%")
    print(f"executing SQL: {100 * sql / total:.1f}%   driver: {100 * (total - sql) / total:.1f}%")


if __name__ == "__main__":
    main()
