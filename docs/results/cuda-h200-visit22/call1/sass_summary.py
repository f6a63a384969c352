"""Summaries of call 1's Nsight Compute exports (visit 22), printed to stdout.

usage: python3 sass_summary.py ROLE   (reads ncu-ROLE-sass.csv and ncu-ROLE-raw.csv, as call1.sh
wrote them; those exports, 0.9 MB each, were not kept: their summaries are the .txt files here)
"""
import csv
import sys
from collections import Counter

role = sys.argv[1]
rows = list(csv.reader(open(f"ncu-{role}-sass.csv")))
hdr, data = rows[1], rows[2:]
executed = hdr.index("Instructions Executed")
sampled = hdr.index("Warp Stall Sampling (All Samples)")

ops, samples = Counter(), Counter()
for r in data:
    words = r[1].split()
    if not words:
        continue
    op = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
    op = op.split(".")[0]
    ops[op] += int(r[executed])
    samples[op] += int(r[sampled])
print(f"# {role}: warp instructions executed, by opcode ({sum(ops.values())} in all)")
for op, n in ops.most_common(30):
    print(f"{op:10s} {n:10d}  stall samples {samples[op]}")

print(f"\n# {role}: instructions executed at least 20,000 times (the row-step loop)")
for k, r in enumerate(data):
    if int(r[executed]) >= 20000:
        print(k, r[executed], r[sampled], r[1].strip())

raw = list(csv.reader(open(f"ncu-{role}-raw.csv")))
metrics = dict(zip(raw[0], raw[2]))
prefix = "smsp__pcsamp_warps_issue_stalled_"
stalls = {k[len(prefix):]: float(v.replace(",", "")) for k, v in metrics.items()
          if k.startswith(prefix) and not k.endswith("not_issued")}
total = sum(stalls.values())
print(f"\n# {role}: warp states of the PC samples")
for k, v in sorted(stalls.items(), key=lambda kv: -kv[1])[:12]:
    print(f"{k:28s} {v:8.0f} {100 * v / total:5.1f} %")
for k in ["sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
          "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
          "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
          "l1tex__throughput.avg.pct_of_peak_sustained_active"]:
    print(k, metrics[k])
