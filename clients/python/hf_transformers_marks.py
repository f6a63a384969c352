#!/usr/bin/env python3
"""The original EcoCompute protocol on Hugging Face transformers, metered by ecocompute through
the marker protocol (docs/marks.md): batch 1, a fixed prompt, greedy generations of 256 new
tokens, 2 warmup + 10 measured iterations per precision, FP16 (eager attention) first, then
INT8 (LLM.int8()) or NF4 through bitsandbytes when it is installed.

  ecocompute measure --marks --precision INT8 --label int8 --fp16-label fp16 -- \\
      python3 clients/python/hf_transformers_marks.py --model DIR --precisions fp16,int8

--model is a checkpoint directory, or a config.json (weights then random, seeded, on the GPU:
no download). --self-check FILE writes, per measured iteration, the GPU's energy counter read by
this script around the same generate calls (libnvidia-ml through ctypes): an independent reading
to hold the report against.
"""
import argparse
import ctypes
import json
import os
import sys
import tempfile
import time

import torch
import transformers

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecocompute_marks import Marks  # noqa: E402

PROMPT = "The energy a language model spends on each generated token depends on"


class Counter:
    """The GPU's total-energy counter (mJ) read through libnvidia-ml, or None without it."""

    def __init__(self, index):
        self.read = None
        try:
            # EC_NVML_LIBRARY, as for ecocompute itself (a test points both at a fake).
            lib = ctypes.CDLL(os.environ.get("EC_NVML_LIBRARY", "libnvidia-ml.so.1"))
            if lib.nvmlInit_v2() != 0:
                return
            handle = ctypes.c_void_p()
            if lib.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(handle)) != 0:
                return
            value = ctypes.c_ulonglong()

            def read():
                if lib.nvmlDeviceGetTotalEnergyConsumption(handle, ctypes.byref(value)) != 0:
                    raise RuntimeError("nvmlDeviceGetTotalEnergyConsumption failed")
                return value.value / 1000.0

            read()
            self.read = read
        except OSError:
            pass


def load(model, precision, device):
    kw = {"attn_implementation": "eager"}
    if precision == "fp16":
        kw["dtype"] = torch.float16
    else:
        import bitsandbytes  # noqa: F401  (INT8 and NF4 need it; the error says so)

        if precision == "int8":
            q = transformers.BitsAndBytesConfig(load_in_8bit=True)
        else:
            q = transformers.BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
                                                bnb_4bit_compute_dtype=torch.float16)
        kw.update(quantization_config=q, dtype=torch.float16, device_map={"": device})
    if os.path.isfile(model):  # a config.json: seeded random weights, then quantized like a checkpoint
        with open(model) as f:
            d = json.load(f)
        for key in ("architectures", "torch_dtype", "dtype"):
            d.pop(key, None)
        cfg = transformers.AutoConfig.for_model(d.pop("model_type"), **d)
        torch.manual_seed(0)
        with torch.device(device):
            try:
                m = transformers.AutoModelForCausalLM.from_config(cfg, dtype=torch.float16,
                                                                  attn_implementation="eager")
            except TypeError:  # transformers before 4.56 names it torch_dtype
                m = transformers.AutoModelForCausalLM.from_config(
                    cfg, torch_dtype=torch.float16, attn_implementation="eager")
        if precision == "fp16":
            return m.eval(), None
        tmp = tempfile.mkdtemp()
        m.save_pretrained(tmp)
        del m
        model = tmp
    m = transformers.AutoModelForCausalLM.from_pretrained(model, **kw)
    if precision == "fp16":
        m = m.to(device)
    tok = None
    try:
        tok = transformers.AutoTokenizer.from_pretrained(model)
    except Exception:  # noqa: BLE001 - a config or checkpoint without a tokenizer: token ids below
        tok = None
    return m.eval(), tok


class SplitAtFirstToken:
    """A streamer that marks the prefill/decode edge when the first new token arrives."""

    def __init__(self):
        self.split = None
        self.calls = 0

    def put(self, value):
        self.calls += 1
        if self.calls == 2 and self.split:  # call 1 is the prompt, call 2 the first new token
            torch.cuda.synchronize()
            self.split()

    def end(self):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="checkpoint directory or config.json")
    ap.add_argument("--precisions", default="fp16", help="fp16,int8,nf4 (labels, in order)")
    ap.add_argument("--new-tokens", type=int, default=256)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--prompt-tokens", type=int, default=0,
                    help="without a tokenizer: this many fixed token ids (default 16)")
    ap.add_argument("--self-check", default="", help="JSON lines of this script's own counter reads")
    a = ap.parse_args()

    device = f"cuda:{torch.cuda.current_device()}"
    marks = Marks()
    counter = Counter(torch.cuda.current_device())
    check = open(a.self_check, "w") if a.self_check else None
    marks.info("model", os.path.basename(os.path.normpath(a.model)).removesuffix(".json"))
    marks.info("device", torch.cuda.get_device_name())
    marks.info("version.torch", torch.__version__)
    marks.info("version.transformers", transformers.__version__)
    try:
        import bitsandbytes

        marks.info("version.bitsandbytes", bitsandbytes.__version__)
    except ImportError:
        pass

    for precision in a.precisions.split(","):
        model, tok = load(a.model, precision, device)
        if tok is not None and not a.prompt_tokens:
            ids = tok(PROMPT, return_tensors="pt").input_ids.to(device)
            marks.info("prompt", PROMPT)
        else:
            n = a.prompt_tokens or 16
            ids = torch.tensor([[(i * 7919 + 13) % model.config.vocab_size for i in range(n)]],
                               device=device)
            marks.info("prompt", f"{n} fixed token ids (i * 7919 + 13 mod vocab)")
        marks.info("prompt_tokens", ids.shape[1])
        if precision == a.precisions.split(",")[0]:  # packed 4-bit weights would count half
            marks.info("params_b", f"{sum(p.numel() for p in model.parameters()) / 1e9:.4f}")
        marks.label(precision)
        marks.info("compute_dtype", "float16")
        marks.info("quantization_backend",
                   "transformers" if precision == "fp16" else "bitsandbytes")
        streamer = SplitAtFirstToken()
        kw = dict(max_new_tokens=a.new_tokens, min_new_tokens=a.new_tokens, do_sample=False,
                  pad_token_id=0, streamer=streamer)

        def generate(split):
            streamer.split, streamer.calls = split, 0
            out = model.generate(ids, **kw)
            torch.cuda.synchronize()
            n = out.shape[1] - ids.shape[1]
            assert n == a.new_tokens, f"generated {n} tokens, expected {a.new_tokens}"
            return n

        with torch.inference_mode():
            for _ in range(a.warmup):
                marks.warmup(generate)
            for i in range(a.iterations):
                reads = {}

                def read(key):
                    # Independent of the meter: this process's own counter read, timed here.
                    reads[key] = (time.monotonic(), counter.read() if counter.read else None)

                reply = marks.iteration(generate, opened=lambda: read("open"),
                                        closing=lambda: read("close"))
                if check:
                    (t0, e0), (t1, e1) = reads["open"], reads["close"]
                    check.write(json.dumps({
                        "label": precision, "iteration": i, "tokens": reply["tokens"],
                        "generations": reply["generations"], "seconds": t1 - t0,
                        "energy_j": e1 - e0 if e0 is not None and e1 is not None else None,
                        "meter_seconds": float(reply.get("seconds", "nan")),
                        "meter_energy_j": float(reply.get("energy_j", "nan"))}) + "\n")
                    check.flush()
        del model
        torch.cuda.empty_cache()
    if check:
        check.close()


if __name__ == "__main__":
    main()
