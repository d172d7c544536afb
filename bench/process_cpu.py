#!/usr/bin/env python3
"""CPU seconds (user + system) of every process named NAME: the live ones,
and the children the oldest reaped (PostgreSQL's backends after they exit).

    bench/process_cpu.py postgres
"""
import os
import sys

hz = os.sysconf("SC_CLK_TCK")
name, total = sys.argv[1], 0
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        continue
    comm = stat[stat.index("(") + 1 : stat.rindex(")")]
    f = stat[stat.rindex(")") + 2 :].split()
    if comm != name:
        continue
    total += int(f[11]) + int(f[12])          # utime, stime
    parent = open(f"/proc/{f[1]}/stat").read() if os.path.exists(f"/proc/{f[1]}/stat") else ""
    if f"({name})" not in parent:
        total += int(f[13]) + int(f[14])      # cutime, cstime of the root
print(total / hz)
