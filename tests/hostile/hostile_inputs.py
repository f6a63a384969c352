#!/usr/bin/env python3
"""Hostile inputs against every parser, the CLI and the server of ecocompute; prints the totals.

Each case is a file or argument built here (nothing is downloaded), run through the real binary
with a 10 s limit, its peak memory measured (wait4), and classified:
  clear error      refused with exit 1/2 (or a status docs/exit-codes.md lists for that command)
                   and an error line, "ecocompute: error: ...", that names the file, field or flag
  accepted valid   a valid input, accepted
  crash            a signal, an exit status the command does not document, a sanitizer report,
                   a bare bad_alloc
  hang > 10 s      still running after 10 s (killed)
  peak RSS over    more than 256 MiB plus 4 × the input's size
  silent accept    a hostile input accepted with exit 0
  data lost        a file that existed before a failed command changed, or a store lost runs
  unclear error    refused, but no error line names the file, the field or the flag
  valid refused    a valid input refused
Usage: hostile_inputs.py --binary build/default/bin/ecocompute [--fixtures tests/fixtures]
                         [--jobs 2] [--slowest N]
Exit status 1 when any bad column is not 0.
"""
import argparse
import concurrent.futures
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HANG_S = 10.0
RSS_BASE = 256 << 20
COLUMNS = ["tried", "clear error", "accepted valid", "crash", "hang > 10 s", "peak RSS over",
           "silent accept", "data lost", "unclear error", "valid refused"]
BAD = COLUMNS[3:]
ERROR_PREFIX = "ecocompute: error: "  # the one form of a failure (docs/exit-codes.md, "Messages")
CRASH_MARKERS = ["AddressSanitizer", "runtime error:", "terminate called", "std::bad_alloc",
                 "Segmentation fault", "LeakSanitizer"]


def execute(argv, timeout=HANG_S, cwd=None):
    """Runs argv; returns (rc, stdout, stderr, wall_s, peak_rss_bytes, hung)."""
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=cwd)
    got = {}

    def drain(stream, key):
        got[key] = stream.read(4 << 20)
        stream.read()  # discard the rest so the child never blocks on a full pipe
    readers = [threading.Thread(target=drain, args=(p.stdout, "out")),
               threading.Thread(target=drain, args=(p.stderr, "err"))]
    for r in readers:
        r.start()
    timer = threading.Timer(timeout, lambda: os.kill(p.pid, signal.SIGKILL))
    start = time.monotonic()
    timer.start()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    timer.cancel()
    for r in readers:
        r.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    return (p.returncode, got.get("out", b"").decode("utf-8", "replace"),
            got.get("err", b"").decode("utf-8", "replace"), wall, usage.ru_maxrss * 1024,
            wall >= timeout)


class Suite:
    """Runs the CLI cases on `jobs` threads: most of a case's time is the binary's start, so two
    at a time halve the run. Inputs are written before a case is queued; drain() waits for every
    queued case, between cases that depend on one another."""

    def __init__(self, binary, work, jobs=2):
        self.binary = binary
        self.work = work
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs))
        self.queued = []
        self.lock = threading.Lock()
        self.totals = {c: 0 for c in COLUMNS}
        self.failures = []
        self.n = 0
        self.walls = []  # (seconds, label) of each CLI case, for --slowest

    def path(self, name):
        return os.path.join(self.work, name)

    def file(self, name, content):
        path = self.path(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content if isinstance(content, bytes) else content.encode())
        return path

    def count(self, column, label, detail=""):
        with self.lock:
            self.totals["tried"] += 1
            self.totals[column] += 1
            if column in BAD:
                self.failures.append(f"{column}: {label}: {detail}"[:600])

    def drain(self):
        queued, self.queued = self.queued, []
        for f in queued:
            f.result()  # re-raises a harness bug instead of losing the case

    def validate_batch(self, cases):
        """cases: (label, file) pairs checked by one `validate --json`; each is classified on its
        own from its verdict and the error lines that name its file."""
        files = [f for _, f in cases]
        rc, out, err, wall, rss, hung = execute([self.binary, "validate", "--json"] + files,
                                                cwd=self.work)
        with self.lock:
            self.n += 1
            self.walls.append((wall, f"validate batch of {len(files)}"))
        size = sum(os.path.getsize(f) for f in files)
        try:
            verdicts = {v["file"]: v for v in json.loads(out)["files"]}
        except (ValueError, KeyError, TypeError):
            verdicts = {}
        errors = [l for l in err.splitlines() if l.startswith(ERROR_PREFIX)]
        for label, f in cases:
            if hung:
                self.count("hang > 10 s", label, f"{wall:.1f} s (batch)")
            elif rc < 0 or rc not in (0, 1) or any(m in err for m in CRASH_MARKERS):
                self.count("crash", label, f"rc {rc}: {err[-300:]}")
            elif rss > RSS_BASE + 4 * size:
                self.count("peak RSS over", label, f"{rss >> 20} MiB (batch)")
            elif f not in verdicts:
                self.count("crash", label, f"no verdict for {f}: {out[-200:]}")
            elif verdicts[f]["valid"]:
                self.count("silent accept", label, "valid")
            elif not any(f in l for l in errors):
                self.count("unclear error", label, f"no '{ERROR_PREFIX}' line names {f}")
            else:
                self.count("clear error", label)

    def cli(self, *args, **kwargs):
        self.queued.append(self.pool.submit(self.run_case, *args, **kwargs))

    def run_case(self, label, args, expect="error", names=(), input_bytes=0, keep=(), check=None,
                 statuses=(0, 1, 2)):
        """Runs `ecocompute ARGS`. names: substrings the error lines must contain (any one of them
        is enough when given as a tuple inside the list). keep: files that must be unchanged.
        statuses: the exit statuses docs/exit-codes.md gives this command."""
        before = {}
        for k in keep:
            with open(k, "rb") as f:
                before[k] = f.read()
        rc, out, err, wall, rss, hung = execute([self.binary] + list(args), cwd=self.work)
        with self.lock:
            self.n += 1
            self.walls.append((wall, label))
        if hung:
            return self.count("hang > 10 s", label, f"{wall:.1f} s")
        if rc < 0 or rc not in statuses or any(m in err for m in CRASH_MARKERS):
            return self.count("crash", label, f"rc {rc}: {err[-300:]}")
        if rss > RSS_BASE + 4 * input_bytes:
            return self.count("peak RSS over", label, f"{rss >> 20} MiB")
        for k, content in before.items():
            if not os.path.exists(k) or open(k, "rb").read() != content:
                return self.count("data lost", label, f"{k} changed")
        if check is not None:
            problem = check(rc, out, err)
            if problem:
                return self.count("data lost" if problem.startswith("lost") else "silent accept",
                                  label, problem)
        if expect == "ok":
            if rc == 0:
                return self.count("accepted valid", label)
            return self.count("valid refused", label, err[-300:])
        if rc == 0:
            return self.count("silent accept", label, out[-200:])
        # Only the error lines count: a name in a progress line or a warning explains nothing.
        errors = [l for l in err.splitlines() if l.startswith(ERROR_PREFIX)]
        first = err.strip().splitlines()[0] if err.strip() else "(nothing on stderr)"
        if not errors:
            return self.count("unclear error", label, f"no '{ERROR_PREFIX}' line: {first}")
        for name in names:
            options = name if isinstance(name, tuple) else (name,)
            if not any(o in l for o in options for l in errors):
                return self.count("unclear error", label, f"missing '{name}': {errors[0]}")
        return self.count("clear error", label)


# ---------------------------------------------------------------------------------------------
# Builders of valid inputs (mutated below)

def safetensors_bytes(tensors, metadata=None, header_override=None):
    """tensors: list of (name, dtype, shape, raw bytes)."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    offset = 0
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    text = header_override if header_override is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + b"".join(t[3] for t in tensors)


# vocab_size 256 and 128 positions: `run`'s default tokenizer has 256 byte tokens and its default
# prompt 69 of them; a smaller model is refused before its weights are read, and the non-finite
# weight cases must reach the weights.
TINY = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 256,
        "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
        "num_attention_heads": 2, "num_key_value_heads": 1, "max_position_embeddings": 128,
        "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "tie_word_embeddings": True,
        "hidden_act": "silu", "torch_dtype": "float16"}


def tiny_tensors(value_of=None):
    """A 1-layer Llama at F16: (name, dtype, shape, bytes); value_of(name, i) gives element i."""
    c = TINY
    h, inter, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    kv = c["num_key_value_heads"] * h // c["num_attention_heads"]
    shapes = [("model.embed_tokens.weight", [v, h]),
              ("model.layers.0.input_layernorm.weight", [h]),
              ("model.layers.0.self_attn.q_proj.weight", [h, h]),
              ("model.layers.0.self_attn.k_proj.weight", [kv, h]),
              ("model.layers.0.self_attn.v_proj.weight", [kv, h]),
              ("model.layers.0.self_attn.o_proj.weight", [h, h]),
              ("model.layers.0.post_attention_layernorm.weight", [h]),
              ("model.layers.0.mlp.gate_proj.weight", [inter, h]),
              ("model.layers.0.mlp.up_proj.weight", [inter, h]),
              ("model.layers.0.mlp.down_proj.weight", [h, inter]),
              ("model.norm.weight", [h])]
    out = []
    for name, shape in shapes:
        n = 1
        for d in shape:
            n *= d
        vals = [value_of(name, i) if value_of else ((i * 37 % 17) - 8) / 64.0 for i in range(n)]
        out.append((name, "F16", shape, struct.pack(f"<{n}e", *vals)))
    return out


def checkpoint(s, name, config=TINY, tensors=None, raw_config=None, raw_st=None):
    d = s.path(name)
    os.makedirs(d, exist_ok=True)
    s.file(f"{name}/config.json", raw_config if raw_config is not None else json.dumps(config))
    s.file(f"{name}/model.safetensors",
           raw_st if raw_st is not None else safetensors_bytes(tensors or tiny_tensors()))
    return d


def deep(n, open_="[", close="]"):
    return open_ * n + close * n


# ---------------------------------------------------------------------------------------------
# The cases

def cli_lists(s):
    gen = ["generate", "--model", "tiny-llama", "--backend", "cpu", "--max-new-tokens", "1"]
    bad_ids = ["1,,2", ",1", "1,", "[1,2", "1 ,, 2", "a", "-1", "1.5", "99999999999", "0x10",
               "1;2", "", " ", "[]", "[,]", "1,2,,", "١", "+1", "1e3", "[[1]]"]
    for i, ids in enumerate(bad_ids):
        s.cli(f"--prompt-ids {ids!r}", gen + ["--prompt-ids", ids], names=["--prompt-ids"])
    for ids in ["1,2,3", "1 2 3", "[1, 2, 3]", " 4 ,5 "]:
        s.cli(f"--prompt-ids {ids!r}", gen + ["--prompt-ids", ids], expect="ok")
    sweep = ["sweep", "--models", "tiny-llama", "--precisions", "FP16", "--repeats", "1",
             "--iterations", "1", "--warmup", "0", "--backend", "cpu"]
    for i, v in enumerate(["8,8,8", "", ",", "1,,2", "0", "-5", "abc", "1-1000000", "5-1",
                           "1-10+0", "1-10*1", "99999999999", "8,8", "1e3"]):
        s.cli(f"--new-tokens {v!r}", sweep + ["--new-tokens", v, "--out", s.path(f"sw{i}")],
              names=["--new-tokens"])
    for i, v in enumerate(["0,0", "", "a", "-1", "1,,2", "3-1", "0-100000", "99999999999"]):
        s.cli(f"--gpus {v!r}", sweep + ["--new-tokens", "1", "--gpus", v,
                                        "--out", s.path(f"sg{i}")], names=["--gpus"])
    s.cli("--precisions FP16,FP16", ["sweep", "--models", "tiny-llama", "--precisions",
                                     "FP16,FP16", "--out", s.path("sp")], names=["--precisions"])
    s.cli("--repeats 10^9", sweep[:5] + ["--repeats", "1000000000", "--out", s.path("sr")],
          names=[("cells", "--repeats")])
    s.cli("--new-tokens valid list", ["sweep", "--models", "tiny-llama", "--precisions", "FP16",
                                      "--new-tokens", "1,2", "--backend", "cpu",
                                      "--emit-slurm", s.path("slurm"), "--out", s.path("slurm")],
          expect="ok")
    tok = ["tokenize", "--tokenizer", "bytes", "--decode", "--text"]
    for v in ["1,,2", "300", "-1", "a", "256", "2147483648", "[1", ","]:
        s.cli(f"--decode {v!r}", tok + [v], names=[("--decode", "decode")])
    s.cli("--decode 72,105", tok + ["72,105"], expect="ok")


def configs(s):
    valid = checkpoint(s, "ok")
    gen = ["generate", "--backend", "cpu", "--prompt-ids", "1,2", "--max-new-tokens", "2",
           "--model"]
    s.cli("tiny checkpoint", gen + [valid], expect="ok")
    mutations = {
        "layers 1e6": {"num_hidden_layers": 1000000}, "layers 1e9": {"num_hidden_layers": 10**9},
        "layers 2^31": {"num_hidden_layers": 2**31}, "layers 0": {"num_hidden_layers": 0},
        "layers -1": {"num_hidden_layers": -1}, "layers 1.5": {"num_hidden_layers": 1.5},
        "layers str": {"num_hidden_layers": "1"}, "layers null": {"num_hidden_layers": None},
        "layers 2": {"num_hidden_layers": 2}, "vocab 1e9": {"vocab_size": 10**9},
        "vocab 0": {"vocab_size": 0}, "hidden 1e9": {"hidden_size": 10**9},
        "hidden odd heads": {"hidden_size": 15}, "heads 0": {"num_attention_heads": 0},
        "kv 3": {"num_key_value_heads": 3}, "head_dim odd": {"head_dim": 7},
        "head_dim huge": {"head_dim": 2**30}, "inter 1e9": {"intermediate_size": 10**9},
        "eps 0": {"rms_norm_eps": 0}, "eps neg": {"rms_norm_eps": -1},
        "eps str": {"rms_norm_eps": "x"}, "theta neg": {"rope_theta": -5},
        "act gelu": {"hidden_act": "gelu"}, "mlp_bias": {"mlp_bias": True},
        "sliding": {"use_sliding_window": True}, "type bert": {"model_type": "bert"},
        "arch mismatch": {"architectures": ["Qwen2ForCausalLM"]},
        "arch not list": {"architectures": 5}, "rope_scaling str": {"rope_scaling": "x"},
        "rope_scaling yarn": {"rope_scaling": {"type": "yarn", "factor": 4}},
        "dtype int": {"torch_dtype": 5}, "untied no head": {"tie_word_embeddings": False},
        "max pos 0": {"max_position_embeddings": 0}, "bos 1e9": {"bos_token_id": 10**9},
        "eos list bad": {"eos_token_id": [1, "x"]}, "eos neg": {"eos_token_id": -3},
    }
    for label, change in mutations.items():
        cfg = dict(TINY)
        cfg.update(change)
        d = checkpoint(s, "cfg-" + label.replace(" ", "_"), config=cfg)
        s.cli(f"config {label}", gen + [d], names=[("config.json", d)])
    for label, raw in {"not json": "{", "array": "[]", "empty": "", "null": "null",
                       "deep": deep(100000), "nan": '{"vocab_size": NaN}',
                       "nul": '{"a":"\u0000"}\x00',
                       "big": '{"x":"' + "a" * (5 << 20) + '"}',
                       "dup keys": json.dumps(TINY)[:-1] + ', "num_hidden_layers": 1000000}',
                       "1e999": '{"vocab_size": 1e999}'}.items():
        d = checkpoint(s, "rawcfg-" + label.replace(" ", "_"), raw_config=raw)
        s.cli(f"config raw {label}", gen + [d], names=[("config.json", d)],
              input_bytes=len(raw))
    # A byte order mark before valid JSON is read as the JSON (RFC 8259 section 8.1 lets a parser
    # ignore it, and editors on Windows write one): accepted, by decision, in every JSON file.
    d = checkpoint(s, "rawcfg-bom", raw_config="\ufeff" + json.dumps(TINY))
    s.cli("config raw bom", gen + [d], expect="ok")


def safetensors(s):
    gen = ["generate", "--backend", "cpu", "--prompt-ids", "1,2", "--max-new-tokens", "2",
           "--model"]
    run = ["run", "--backend", "cpu", "--new-tokens", "2", "--iterations", "1", "--warmup", "0",
           "--no-quality", "--model"]
    good = tiny_tensors()
    body = b"".join(t[3] for t in good)
    hdr = json.loads(safetensors_bytes(good)[8:8 + struct.unpack("<Q",
                                                                  safetensors_bytes(good)[:8])[0]])

    def with_header(h):
        text = json.dumps(h).encode()
        return struct.pack("<Q", len(text)) + text + body
    raws = {
        "empty": b"", "short": b"\x01\x02", "len beyond": struct.pack("<Q", 1 << 40) + b"{}",
        "len 2^63": struct.pack("<Q", 1 << 63) + b"{}", "header not json":
        struct.pack("<Q", 4) + b"{{{{", "header array": struct.pack("<Q", 2) + b"[]",
        "header deep": (lambda t: struct.pack("<Q", len(t)) + t)(deep(5000).encode()),
        "truncated body": safetensors_bytes(good)[:-100],
        "header nul": struct.pack("<Q", 3) + b"{\x00}",
    }
    for key in list(hdr)[:6]:
        for label, value in {"dtype X": dict(hdr[key], dtype="X"),
                             "offsets beyond": dict(hdr[key], data_offsets=[0, 1 << 40]),
                             "offsets reversed": dict(hdr[key], data_offsets=[8, 0]),
                             "shape neg": dict(hdr[key], shape=[-1, 16]),
                             "shape huge": dict(hdr[key], shape=[1 << 31, 1 << 31]),
                             "shape mismatch": dict(hdr[key], shape=[1]),
                             "not object": 5}.items():
            if key != "model.embed_tokens.weight" and label not in ("dtype X", "shape huge"):
                continue
            h = dict(hdr)
            h[key] = value
            raws[f"{key} {label}"] = with_header(h)
    h = dict(hdr)
    del h["model.norm.weight"]
    raws["missing tensor"] = with_header(h)
    h = dict(hdr)
    h["extra.weight"] = dict(hdr["model.norm.weight"])
    raws["extra tensor"] = with_header(h)
    h = dict(hdr)
    h["__metadata__"] = {"format": {"nested": [1]}}
    raws["metadata not strings"] = with_header(h)
    for label, raw in raws.items():
        d = checkpoint(s, "st-" + label.replace(" ", "_").replace("/", "_"), raw_st=raw)
        s.cli(f"safetensors {label}", gen + [d], names=[("model.safetensors", d)],
              input_bytes=len(raw))
    # Non-finite weights: refused at load for every precision (FP16 too).
    for label, value in {"NaN": float("nan"), "+Inf": float("inf"), "-Inf": float("-inf")}.items():
        for tensor in ["model.layers.0.mlp.up_proj.weight", "model.norm.weight"]:
            t = tiny_tensors(lambda n, i, v=value, tn=tensor: v if (n == tn and i == 3) else 0.01)
            d = checkpoint(s, f"nf-{label}-{tensor[-20:]}", tensors=t)
            for precision in ["FP16", "INT8", "NF4"]:
                s.cli(f"{label} in {tensor} at {precision}",
                      run + [d, "--precision", precision, "--out", s.path(f"nf-{label}.json")],
                      names=[tensor, label])
    s.cli("generate NaN", gen + [s.path("nf-NaN-" + "model.layers.0.mlp.up_proj.weight"[-20:])],
          names=["NaN"])


def index_json(s):
    gen = ["generate", "--backend", "cpu", "--prompt-ids", "1", "--max-new-tokens", "1",
           "--model"]
    good = tiny_tensors()
    half = len(good) // 2

    def sharded(name, index, shards=True):
        d = s.path(name)
        os.makedirs(d, exist_ok=True)
        s.file(f"{name}/config.json", json.dumps(TINY))
        if shards:
            s.file(f"{name}/a.safetensors", safetensors_bytes(good[:half]))
            s.file(f"{name}/b.safetensors", safetensors_bytes(good[half:]))
        s.file(f"{name}/model.safetensors.index.json",
               index if isinstance(index, str) else json.dumps(index))
        return d
    wm = {t[0]: ("a.safetensors" if i < half else "b.safetensors") for i, t in enumerate(good)}
    s.cli("sharded valid", gen + [sharded("ix-ok", {"weight_map": wm})], expect="ok")
    cases = {"not json": "{", "array": [], "no map": {}, "map list": {"weight_map": []},
             "value int": {"weight_map": dict(wm, **{"model.norm.weight": 5})},
             "escape ..": {"weight_map": dict(wm, **{"model.norm.weight": "../x.safetensors"})},
             "absolute": {"weight_map": dict(wm, **{"model.norm.weight": "/etc/passwd"})},
             "missing shard": {"weight_map": dict(wm, **{"model.norm.weight": "c.safetensors"})},
             "wrong shard": {"weight_map": dict(wm, **{"model.norm.weight": "a.safetensors"})},
             "unlisted": {"weight_map": {k: v for k, v in wm.items() if "norm" not in k}},
             "deep": deep(100000), "empty name": {"weight_map": dict(wm, **{"": "a.safetensors"})},
             "empty shard": {"weight_map": dict(wm, **{"model.norm.weight": ""})},
             "dir shard": {"weight_map": dict(wm, **{"model.norm.weight": "."})},
             "many names": {"weight_map": dict(wm, **{f"x{i}": "a.safetensors"
                                                     for i in range(20000)})},
             "big": '{"weight_map": {"' + "a" * (70 << 20) + '": "a"}}'}
    for label, index in cases.items():
        d = sharded("ix-" + label.replace(" ", "_").replace(".", "d"), index)
        s.cli(f"index {label}", gen + [d], names=[("model.safetensors.index.json", d)],
              input_bytes=len(index) if isinstance(index, str) else 0)


class Raw(str):
    """JSON text to splice into a document as it is."""


def tokenizers(s):
    def tj(model=None, normalizer=None, pre=None, decoder=None, post=None, added=None):
        # A component given as Raw is spliced in as text: json.dumps recurses once per level and
        # the nesting cases go deeper than Python's recursion limit.
        raw = {}
        def part(name, value):
            if isinstance(value, Raw):
                raw[f'"@{name}@"'] = str(value)
                return f"@{name}@"
            return value
        text = json.dumps({"version": "1.0", "truncation": None, "padding": None,
                           "added_tokens": added or [], "normalizer": part("n", normalizer),
                           "pre_tokenizer": part("p", pre), "post_processor": post,
                           "decoder": part("d", decoder),
                           "model": model or {"type": "BPE", "vocab": {"h": 0, "i": 1, "hi": 2},
                                              "merges": ["h i"]}})
        for placeholder, value in raw.items():
            text = text.replace(placeholder, value)
        return text
    tok = ["tokenize", "--text", "hi hi", "--tokenizer"]
    s.cli("tokenizer valid", tok + [s.file("tok/ok.json", tj())], expect="ok")

    def nested(kind, key, depth, leaf):
        head = '{"type": "Sequence", "' + key + '": ['
        return Raw(head * depth + json.dumps(leaf) + "]}" * depth)
    cases = {}
    for depth in [65, 1000, 8000]:
        cases[f"normalizers nested {depth}"] = tj(
            normalizer=nested("n", "normalizers", depth, {"type": "NFC"}))
        cases[f"pretokenizers nested {depth}"] = tj(
            pre=nested("p", "pretokenizers", depth, {"type": "Whitespace"}))
        cases[f"decoders nested {depth}"] = tj(
            decoder=nested("d", "decoders", depth, {"type": "Fuse"}))
    cases["dup id"] = tj(model={"type": "BPE", "vocab": {"h": 0, "i": 0, "hi": 2}, "merges": []})
    cases["id huge"] = tj(model={"type": "BPE", "vocab": {"h": 2**40}, "merges": []})
    cases["id neg"] = tj(model={"type": "BPE", "vocab": {"h": -1}, "merges": []})
    cases["id str"] = tj(model={"type": "BPE", "vocab": {"h": "0"}, "merges": []})
    cases["merge unknown"] = tj(model={"type": "BPE", "vocab": {"h": 0}, "merges": ["h x"]})
    cases["merge three"] = tj(model={"type": "BPE", "vocab": {"h": 0}, "merges": ["h h h"]})
    cases["model WordPiece"] = tj(model={"type": "WordPiece", "vocab": {"h": 0}})
    cases["no model"] = json.dumps({"normalizer": None})
    cases["regex bad"] = tj(pre={"type": "Split", "pattern": {"Regex": "(("},
                                 "behavior": "Isolated", "invert": False})
    cases["unk missing"] = tj(model={"type": "BPE", "vocab": {"h": 0}, "merges": [],
                                     "unk_token": "<unk>"})
    cases["added bad id"] = tj(added=[{"id": -5, "content": "<x>", "special": True}])
    cases["not json"] = "{"
    cases["deep"] = deep(200000)
    cases["array"] = "[]"
    cases["vocab array"] = tj(model={"type": "BPE", "vocab": [1, 2], "merges": []})
    cases["normalizer unknown"] = tj(normalizer={"type": "Nope"})
    for label, text in cases.items():
        f = s.file("tok/" + label.replace(" ", "_") + ".json", text)
        s.cli(f"tokenizer {label}", tok + [f], names=[f], input_bytes=len(text))
    # A pattern that backtracks catastrophically: PCRE2's match limit stops it, naming the file.
    evil = s.file("tok/evil.json", tj(pre={"type": "Split", "pattern": {"Regex": "(a+)+$"},
                                           "behavior": "Isolated", "invert": False}))
    s.cli("tokenizer catastrophic regex", ["tokenize", "--tokenizer", evil, "--text",
                                           "a" * 40 + "b"], names=[evil])
    s.cli("decode id not in vocab", ["tokenize", "--tokenizer", s.path("tok/ok.json"),
                                     "--decode", "--text", "0,7"], names=["7", "--decode"])
    s.cli("decode valid", ["tokenize", "--tokenizer", s.path("tok/ok.json"), "--decode",
                           "--text", "0,1,2"], expect="ok")
    s.file("tok/bad.txt", b"\xff\xfe")
    s.cli("text not utf8", ["tokenize", "--tokenizer", "bytes", "--text-file",
                            s.path("tok/bad.txt")], names=["UTF-8"])
    s.cli("text file missing", ["tokenize", "--tokenizer", "bytes", "--text-file",
                                s.path("tok/none.txt")], names=["none.txt"])


def reports(s, valid_report):
    val = ["validate"]
    s.cli("report valid", val + [valid_report], expect="ok")
    base = json.load(open(valid_report))
    raws = {"deep 1e6": deep(1000000), "deep 300 in a field": json.dumps(base)[:-1] +
            ', "x": ' + deep(300) + "}", "nan": json.dumps(base).replace('"seconds": ', '"seconds": NaN, "y":', 1),
            "empty": "", "not json": "{", "array": "[]", "1e400": '{"a": 1e400}',
            "garbage": "\x00\x01\x02", "string": '"x"', "truncated": json.dumps(base)[:200]}
    for label, raw in raws.items():
        f = s.file(f"rep/{label.replace(' ', '_')}.json", raw)
        s.cli(f"validate {label}", val + [f], names=[f], input_bytes=len(raw))
    n = 0
    batch = []
    for key, value in base.items():
        for bad in [None, "x", -1, [], {}]:
            if n >= 60 or bad == value:
                continue
            doc = dict(base)
            doc[key] = bad
            text = json.dumps(doc)
            if text == json.dumps(base):
                continue
            f = s.file(f"rep/m{n}.json", text)
            n += 1
            batch.append((f"validate {key}={bad!r}", f))
    # One `validate` for all of them (it takes many files and gives each a verdict): these small
    # documents need no process of their own.
    s.queued.append(s.pool.submit(s.validate_batch, batch))


def csvs(s):
    fixtures = s.fixtures
    measured = os.path.join(fixtures, "original", "rtx4090_paired_energy_quality_2026-08-19.csv")
    agg = ["aggregate", "--format", "csv"]
    s.cli("csv valid", agg + [measured], expect="ok")
    header = open(measured).readline().strip()
    cols = header.split(",")
    raws = {"dup header": header + "," + cols[0] + "\n", "unterminated": header + '\n"abc\n',
            "ragged": header + "\n1,2\n", "empty": "", "header only blanks": ",,,\n",
            "nul": header + "\n" + "\x00" * 50 + "\n", "huge field": header + "\n" +
            '"' + "a" * (3 << 20) + '"\n', "binary": "\xff\xfe\x00garbage"}
    for label, raw in raws.items():
        f = s.file(f"csv/{label.replace(' ', '_')}.csv", raw)
        s.cli(f"csv {label}", agg + [f], names=[f], input_bytes=len(raw))
    # Formula cells are accepted as text and written back neutralised.
    lines = open(measured).read().splitlines()
    row = lines[1].split(",")
    for i, formula in enumerate(['=HYPERLINK("http://x","y")', "+1+1", "@SUM(A1)", "-2+3"]):
        r = list(row)
        r[cols.index("model") if "model" in cols else 1] = formula.replace(",", ";")
        f = s.file(f"csv/formula{i}.csv", "\n".join([lines[0], ",".join(r)]) + "\n")

        def neutral(rc, out, err, formula=formula.replace(",", ";")):
            for cell in out.replace('"', "").split(","):
                if cell.startswith(formula[0]) and cell == formula:
                    return f"formula cell written verbatim: {cell}"
            return ""
        s.cli(f"csv formula {formula}", agg + [f], expect="ok", check=neutral)


def curves(s):
    est = ["estimate", "--params-b", "7", "--arch", "ada", "--precision", "NF4", "--curves"]
    good = {"curves": {"ada": {"NF4": {"A": -20, "S": 10, "Nstar": 3, "resid_std": 2,
                                       "n_min": 0.5, "n_max": 14}}}}
    s.cli("curves valid", est + [s.file("cv/ok.json", json.dumps(good))], expect="ok")
    muts = {"Nstar 0": ("Nstar", 0), "Nstar neg": ("Nstar", -3), "resid neg": ("resid_std", -1),
            "A 1e308": ("A", 1e308), "S 1e308": ("S", 1e308), "Nstar str": ("Nstar", "3"),
            "n_min 0": ("n_min", 0), "n_max < n_min": ("n_max", 0.1), "A null": ("A", None),
            "resid 1e308": ("resid_std", 1e308), "Nstar 1e308": ("Nstar", 1e308)}
    for label, (k, v) in muts.items():
        c = json.loads(json.dumps(good))
        c["curves"]["ada"]["NF4"][k] = v
        f = s.file(f"cv/{label.replace(' ', '_')}.json", json.dumps(c))
        s.cli(f"curves {label}", est + [f], names=[f, k])
    raws = {"not json": "{", "array": "[]", "no curves": "{}", "curves list": '{"curves": []}',
            "arch number": '{"curves": {"ada": 5}}', "prec number": '{"curves": {"ada": {"NF4": 1}}}',
            "deep": deep(100000), "nan": '{"curves": {"ada": {"NF4": {"A": NaN}}}}',
            "1e999": '{"curves": {"ada": {"NF4": {"A": 1e999}}}}', "empty": ""}
    for label, raw in raws.items():
        f = s.file(f"cv/raw_{label.replace(' ', '_')}.json", raw)
        s.cli(f"curves {label}", est + [f], names=[f], input_bytes=len(raw))
    s.cli("curves missing file", est + [s.path("cv/none.json")], names=["none.json"])


def manifests(s):
    d = s.path("slurm")  # written by the --emit-slurm case in cli_lists
    base = json.load(open(os.path.join(d, "manifest.json")))
    muts = {"repeats 1e9": ("spec", "repeats", 10**9), "repeats 0": ("spec", "repeats", 0),
            "models int": ("spec", "models", 5), "new_tokens str": ("spec", "new_tokens", "x"),
            "new_tokens dup": ("spec", "new_tokens", [1, 1]),
            "models huge": ("spec", "models", ["m"] * 200000), "seed neg": ("spec", "seed", -1),
            "format": (None, "format", "x"), "format int": (None, "format", 1),
            "version str": (None, "version", "1"), "version 99": (None, "version", 99),
            "cells obj": (None, "cells", {}), "cells ints": (None, "cells", [1, 2]),
            "cells short": (None, "cells", []), "session int": (None, "session", 5),
            "spec missing": (None, "spec", None)}
    for i, (label, (outer, key, value)) in enumerate(muts.items()):
        m = json.loads(json.dumps(base))
        (m[outer] if outer else m)[key] = value
        md = s.path(f"mf{i}")
        os.makedirs(md, exist_ok=True)
        f = s.file(f"mf{i}/manifest.json", json.dumps(m))
        s.cli(f"manifest {label}", ["sweep", "--collect", md], names=[f],
              input_bytes=os.path.getsize(f), keep=[f])
    for i, raw in enumerate(["{", "[]", deep(100000), "", "null", "\x00"]):
        md = s.path(f"mr{i}")
        os.makedirs(md, exist_ok=True)
        f = s.file(f"mr{i}/manifest.json", raw)
        s.cli(f"manifest raw {raw[:8]!r}", ["sweep", "--collect", md], names=[f], keep=[f])


def stores_and_outputs(s, valid_report):
    db = s.path("st/store.sqlite")
    s.cli("ingest valid", ["ingest", "--db", db, valid_report], expect="ok")
    s.drain()  # the store must hold the run before the next case counts it
    bad = s.file("st/bad.json", "{")

    def still_one(rc, out, err):
        # The valid report is not a measurement (no meter here), so aggregate has nothing to
        # show: `sessions` counts every run the store holds.
        rc2, out2, _, _, _, _ = execute([s.binary, "sessions", "--db", db, "--format", "json"])
        runs = sum(row.get("runs", 0) for row in json.loads(out2)) if rc2 == 0 else 0
        return "" if runs == 1 else f"lost: the store holds {runs} runs, not 1"
    # Exit 3: some input rejected, the rest stored (docs/exit-codes.md).
    s.cli("ingest bad into store", ["ingest", "--db", db, bad], names=[bad], check=still_one,
          statuses=(0, 1, 2, 3))
    s.drain()
    s.cli("aggregate --db missing", ["aggregate", "--db", s.path("st/none.sqlite")],
          names=["none.sqlite"])
    garbage = s.file("st/garbage.sqlite", b"\x00" * 4096 + b"not a database")
    s.cli("aggregate --db garbage", ["aggregate", "--db", garbage], names=[garbage])
    keep = s.file("st/keep.json", "precious\n")
    # One at a time: each compares the kept file with what it held before that command.
    s.cli("fit --out kept on bad input", ["fit", bad, "--out", keep], names=[bad], keep=[keep])
    s.drain()
    s.cli("run --out kept on bad model", ["run", "--model", s.path("rawcfg-not_json"),
                                          "--backend", "cpu", "--out", keep], names=["config.json"],
          keep=[keep])
    s.drain()
    s.cli("aggregate --summary-csv kept", ["aggregate", bad, "--summary-csv", keep], names=[bad],
          keep=[keep])
    s.cli("validate missing", ["validate", s.path("st/none.json")], names=["none.json"])


# ---------------------------------------------------------------------------------------------
# The server

def http(port, raw, timeout=5.0, read=True):
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        sock.sendall(raw)
        if not read:
            return sock
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data:
                head, _, rest = data.partition(b"\r\n\r\n")
                if raw.startswith(b"HEAD "):
                    break  # its Content-Length describes a body that is never sent
                length = [l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")]
                if length and len(rest) >= int(length[0].split(b":")[1]):
                    break
        return data
    finally:
        if read:
            sock.close()


def server(s):
    p = subprocess.Popen([s.binary, "serve", "--port", "0", os.path.join(
        s.fixtures, "original", "measured.csv")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=s.work)
    line = p.stdout.readline().decode()
    try:
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
    except (IndexError, ValueError):
        s.count("crash", "serve did not start", line + p.stderr.read(2000).decode())
        p.kill()
        return
    good = b"GET /v1/estimate?params_b=7&arch=ada&precision=NF4 HTTP/1.1\r\nHost: x\r\n\r\n"
    requests = {
        "estimate": (good, "200"), "index": (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "200"),
        "curves": (b"GET /v1/curves HTTP/1.1\r\nHost: x\r\n\r\n", "200"),
        "head": (b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n", "200"),
        "huge content-length": (b"POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: "
                                b"1000000000000\r\n\r\n", "413"),
        "content-length junk": (b"POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n", "4"),
        "content-length neg": (b"POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n", "4"),
        "body too big": (b"POST / HTTP/1.1\r\nContent-Length: 9000\r\n\r\n" + b"x" * 9000, "413"),
        "long uri": (b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n", "41"),
        "long header": (b"GET / HTTP/1.1\r\nX: " + b"h" * 20000 + b"\r\n\r\n", "4"),
        "many headers": (b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 5000 + b"\r\n", "4"),
        "bad method": (b"BREW / HTTP/1.1\r\n\r\n", "4"),
        "bad version": (b"GET / HTTP/9.9\r\n\r\n", "4"), "garbage": (b"\x00\x01\x02\r\n\r\n", "4"),
        "no path": (b"GET HTTP/1.1\r\n\r\n", "4"), "traversal": (b"GET /../../etc/passwd "
                                                                b"HTTP/1.1\r\n\r\n", "4"),
        "encoded traversal": (b"GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\n\r\n", "4"),
        "nul in path": (b"GET /a%00b HTTP/1.1\r\n\r\n", "4"),
        "chunked huge": (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFF\r\n",
                         "4"),
        "chunked bad": (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "4"),
        "range huge": (b"GET / HTTP/1.1\r\nRange: bytes=0-99999999999\r\n\r\n", ""),
        "ranges many": (b"GET / HTTP/1.1\r\nRange: bytes=" + b"0-1," * 2000 + b"0-1\r\n\r\n", ""),
        "params nan": (b"GET /v1/estimate?params_b=nan&arch=ada&precision=NF4 HTTP/1.1\r\n\r\n",
                       "400"),
        "params 1e308": (b"GET /v1/estimate?params_b=1e308&arch=ada&precision=NF4 HTTP/1.1\r\n\r\n",
                         "4"),
        "params repeated": (b"GET /v1/estimate?params_b=7&params_b=8&arch=ada&precision=NF4 "
                            b"HTTP/1.1\r\n\r\n", "400"),
        "params bad utf8": (b"GET /v1/estimate?params_b=7&arch=%ff&precision=NF4 HTTP/1.1\r\n\r\n",
                            "400"),
        "unknown endpoint": (b"GET /v1/nope HTTP/1.1\r\n\r\n", "404"),
        "options": (b"OPTIONS / HTTP/1.1\r\n\r\n", ""),
        "delete": (b"DELETE / HTTP/1.1\r\n\r\n", "4"),
        "header no colon": (b"GET / HTTP/1.1\r\nNoColon\r\n\r\n", ""),
        "lf only": (b"GET / HTTP/1.1\nHost: x\n\n", ""),
        "pipelined 50": (good * 50, "200"),
    }
    for label, (raw, want) in requests.items():
        start = time.monotonic()
        try:
            data = http(port, raw)
        except OSError as e:
            data = b""
        wall = time.monotonic() - start
        status = data[9:12].decode("latin-1") if data.startswith(b"HTTP/1.1 ") else ""
        if p.poll() is not None:
            s.count("crash", f"serve {label}", p.stderr.read(2000).decode())
            return
        if wall > HANG_S:
            s.count("hang > 10 s", f"serve {label}", f"{wall:.1f} s")
        elif want == "200":
            s.count("accepted valid" if status == "200" else "valid refused", f"serve {label}",
                    data[:200])
        elif status.startswith("2") and want != "":
            s.count("silent accept", f"serve {label}", data[:200])
        elif status.startswith("4") and b'"error"' not in data:
            s.count("unclear error", f"serve {label}", data[:200])
        else:
            # A refusal with a JSON error, an answer where any is fine, or a closed connection
            # (httplib closes on lines it cannot parse).
            s.count("clear error" if not status.startswith("2") else "accepted valid",
                    f"serve {label}")
    # 32 slow or idle connections, then 20 normal GETs, each within 1 s.
    held = []
    for i in range(32):
        held.append(http(port, b"GET / HTTP/1.1\r\nX-Slow: " if i % 2 else b"", read=False))
    time.sleep(0.3)
    slowest = 0.0
    ok = 0
    for _ in range(20):
        start = time.monotonic()
        data = http(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", timeout=2.0)
        slowest = max(slowest, time.monotonic() - start)
        ok += data.startswith(b"HTTP/1.1 200")
    for h in held:
        h.close()
    if ok == 20 and slowest < 1.0:
        s.count("accepted valid", "serve with 32 slow clients")
    else:
        s.count("hang > 10 s" if slowest >= HANG_S else "valid refused",
                "serve with 32 slow clients", f"{ok}/20 answered, slowest {slowest:.2f} s")
    with open(f"/proc/{p.pid}/status") as f:
        hwm = [l for l in f if l.startswith("VmHWM")]
    rss = int(hwm[0].split()[1]) * 1024 if hwm else 0
    s.count("peak RSS over" if rss > RSS_BASE else "accepted valid", "serve peak RSS",
            f"{rss >> 20} MiB")
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        p.kill()
        s.count("hang > 10 s", "serve stop", "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--fixtures", default=os.path.join(os.path.dirname(__file__), "..",
                                                           "fixtures"))
    parser.add_argument("--jobs", type=int, default=2, metavar="N",
                        help="CLI cases run at once (default 2)")
    parser.add_argument("--slowest", type=int, default=0, metavar="N",
                        help="also list the N slowest CLI cases")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ec-hostile-") as work:
        s = Suite(binary, work, args.jobs)
        s.fixtures = os.path.abspath(args.fixtures)
        report = s.path("valid.json")
        s.cli("run writes a valid report", ["run", "--model", "tiny-llama", "--precision", "INT8",
                                            "--backend", "cpu", "--new-tokens", "4",
                                            "--iterations", "1", "--warmup", "0", "--no-quality",
                                            "--out", report], expect="ok")
        s.drain()
        # A group may read what an earlier one wrote (manifests reads cli_lists' Slurm sweep).
        for group in [cli_lists, configs, safetensors, index_json, tokenizers, curves, csvs,
                      lambda s: reports(s, report), manifests,
                      lambda s: stores_and_outputs(s, report)]:
            group(s)
            s.drain()
        s.pool.shutdown()
        server(s)
    width = max(len(c) for c in COLUMNS)
    print(f"hostile inputs: {time.monotonic() - started:.0f} s")
    for c in COLUMNS:
        mark = "  <-- must be 0" if c in BAD and s.totals[c] else ""
        print(f"  {c:<{width}}  {s.totals[c]:>4}{mark}")
    for f in sorted(s.failures):
        print("  " + f)
    for wall, label in sorted(s.walls, reverse=True)[:args.slowest]:
        print(f"  {wall:6.2f} s  {label}")
    return 1 if any(s.totals[c] for c in BAD) else 0


if __name__ == "__main__":
    sys.exit(main())
