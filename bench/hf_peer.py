#!/usr/bin/env python3
"""The peer to beat: Hugging Face transformers, eager attention, FP16, batch 1, on the same
architectures (config.json files written by `bench_decode --configs-dir`), randomly initialised on
the GPU (no download), greedy decoding of the same number of new tokens after the same prompt
length. Energy from the NVML total-energy counter via pynvml when it imports, else time only.

  python3 bench/hf_peer.py --configs DIR [--models a,b] [--tokens 256] [--prompt 16]
                           [--warmup 1] [--iters 2] [--json FILE]
"""
import argparse
import json
import os
import statistics
import time

import torch
import transformers


def nvml_energy():
    """A function returning the GPU's energy counter in joules, or None when NVML is not there."""
    try:
        import pynvml  # nvidia-ml-py

        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
        pynvml.nvmlDeviceGetTotalEnergyConsumption(handle)  # raises when unsupported
        return lambda: pynvml.nvmlDeviceGetTotalEnergyConsumption(handle) / 1000.0
    except Exception as e:  # noqa: BLE001 - any failure means "no energy", stated below
        print(f"# energy unavailable: {e}")
        return None


def load(path):
    with open(path) as f:
        d = json.load(f)
    model_type = d.pop("model_type")
    d.pop("architectures", None)
    d.pop("torch_dtype", None)
    d.pop("dtype", None)
    cfg = transformers.AutoConfig.for_model(model_type, **d)
    cfg._attn_implementation = "eager"
    torch.manual_seed(0)
    with torch.device("cuda"):
        try:
            model = transformers.AutoModelForCausalLM.from_config(
                cfg, dtype=torch.float16, attn_implementation="eager")
        except TypeError:
            model = transformers.AutoModelForCausalLM.from_config(
                cfg, torch_dtype=torch.float16, attn_implementation="eager")
    model.eval()
    return model, cfg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", required=True)
    ap.add_argument("--models", default="qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b")
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--prompt", type=int, default=16)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--iters", type=int, default=2)
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    energy = nvml_energy()
    out = open(a.json, "w") if a.json else None
    print(f"# torch {torch.__version__}, transformers {transformers.__version__}, "
          f"{torch.cuda.get_device_name()}")
    print("| model | HF eager FP16 tok/s | J/1k tok | avg W | GB/token |")
    print("|---|---|---|---|---|")
    for name in a.models.split(","):
        model, cfg = load(os.path.join(a.configs, name + ".json"))
        nbytes = sum(p.numel() * p.element_size() for p in model.parameters())
        ids = torch.tensor([[(i * 7919 + 13) % cfg.vocab_size for i in range(a.prompt)]],
                           device="cuda")
        kw = dict(max_new_tokens=a.tokens, min_new_tokens=a.tokens, do_sample=False,
                  pad_token_id=0)
        times, joules = [], []
        with torch.inference_mode():
            for it in range(a.warmup + a.iters):
                torch.cuda.synchronize()
                e0 = energy() if energy else None
                t0 = time.perf_counter()
                gen = model.generate(ids, **kw)
                torch.cuda.synchronize()
                dt = time.perf_counter() - t0
                e1 = energy() if energy else None
                assert gen.shape[1] - ids.shape[1] == a.tokens, gen.shape
                if it >= a.warmup:
                    times.append(dt)
                    if energy:
                        joules.append(e1 - e0)
        dt = statistics.median(times)
        tps = a.tokens / dt
        j1k = statistics.median(joules) / a.tokens * 1000 if joules else None
        watts = statistics.median(joules) / dt if joules else None
        print(f"| {name} | {tps:.1f} | {j1k:.0f} | {watts:.0f} | {nbytes / 1e9:.2f} |"
              if joules else f"| {name} | {tps:.1f} | n/a | n/a | {nbytes / 1e9:.2f} |", flush=True)
        if out:
            out.write(json.dumps(dict(model=name, tok_s=tps, seconds=times, joules=joules,
                                      tokens=a.tokens, prompt=a.prompt, param_bytes=nbytes,
                                      torch=torch.__version__,
                                      transformers=transformers.__version__)) + "\n")
            out.flush()
        del model
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
