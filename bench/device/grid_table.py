#!/usr/bin/env python3
"""The grid stage's summary: one row per `ecocompute run` report (model × precision) with its FP16
baseline from the same process, next to HF transformers eager FP16 measured in the same invocation.
Usage: grid_table.py REPORTS_DIR [hf.jsonl]"""
import glob
import json
import os
import sys


def main():
    reports = sorted(glob.glob(os.path.join(sys.argv[1], "grid-*.json")))
    hf = {}
    if len(sys.argv) > 2 and os.path.exists(sys.argv[2]):
        for line in open(sys.argv[2]):
            row = json.loads(line)
            if row.get("joules"):
                hf[row["model"]] = (row["tok_s"], sum(row["joules"]) / len(row["joules"]) / row["tokens"] * 1000)
            else:
                hf[row["model"]] = (row["tok_s"], None)
    print("| model | precision | basis | tok/s | J/1k tok | FP16 tok/s | FP16 J/1k tok | ΔE vs FP16 | "
          "ppl | KL vs FP16 | top-1 | probe s | HF eager FP16 tok/s | HF J/1k tok |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for path in reports:
        try:
            r = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"| {os.path.basename(path)} | unreadable: {e} |")
            continue
        res = r["results"]
        base = r.get("baseline", {}).get("results", {})
        q = r.get("quality", {}) or {}
        model = os.path.basename(path)[len("grid-"):-len(".json")].rsplit("-", 1)[0]
        h = hf.get(model, (None, None))
        probe = sum(p.get("seconds", 0) for p in r.get("phases", []) if p.get("name") == "quality")

        def f(v, fmt="{:.1f}"):
            return fmt.format(v) if isinstance(v, (int, float)) else "n/a"

        print(f"| {model} | {r['engine']['precision']} | {res['basis']} | {f(res.get('throughput_tokens_per_s'))} | "
              f"{f(res.get('energy_per_token_mj'))} | {f(base.get('throughput_tokens_per_s'))} | "
              f"{f(base.get('energy_per_token_mj'))} | {f(res.get('vs_fp16_energy_pct'), '{:+.1f} %')} | "
              f"{f(q.get('value'), '{:.3f}')} | {f(q.get('mean_kl_vs_fp16'), '{:.4f}')} | "
              f"{f(q.get('top1_agreement_vs_fp16'), '{:.3f}')} | {f(probe or None)} | "
              f"{f(h[0])} | {f(h[1], '{:.0f}')} |")


if __name__ == "__main__":
    main()
