#!/usr/bin/env python3
"""One line of a txbench run's figures for the peer benchmarks: its
throughput, latency (mean, p50, p99, from the intended start), retries and
client CPU a transaction, from the one summary.json under RESULTS.

    bench/txbench_line.py RESULTS LABEL CPU_SECONDS
"""
import glob
import json
import sys

results, label, cpu = sys.argv[1], sys.argv[2], float(sys.argv[3])
[path] = glob.glob(results + "/*/summary.json")
s = json.load(open(path))
t = s["transactions"][0]
l = t["latency_ms"]
n = t["committed"] + t["expected_rollbacks"]
print("%s: %.0f tps, latency mean %.3f ms p50 %.3f ms p99 %.3f ms, client CPU %.0f us a transaction (%d, %d retries)"
      % (label, s["metrics"][0]["value"], l["mean"], l["p50"], l["p99"], cpu * 1e6 / n, n, t.get("retries", 0)))
