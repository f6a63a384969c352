# Counts SASS opcodes per NF4 GEMV kernel in cuobjdump -sass dumps: one table row per (file, kernel).
import re, subprocess, sys, collections
OPS = ["LDS", "PRMT", "LEA", "IADD3", "IMAD", "SHF", "LOP3", "HFMA2", "HMUL2", "HADD2", "FADD", "FFMA", "LDG", "BAR"]
print("| file | kernel | total | " + " | ".join(OPS) + " |")
print("|---|---|---|" + "---|" * len(OPS))
for path in sys.argv[1:]:
    funcs = collections.OrderedDict()
    cur = None
    for line in open(path, errors="replace"):
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            funcs[cur] = collections.Counter()
            continue
        m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(\.[A-Z0-9_.]+)?", line)
        if cur and m:
            funcs[cur][m.group(1)] += 1
            funcs[cur]["__total"] += 1
    names = list(funcs)
    try:
        dem = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
    except Exception:
        dem = names
    for n, d in zip(names, dem):
        if "Nf4" not in n:
            continue
        short = re.sub(r"ec::engine::cuda::|nf4::|detail::|\(GemvPipeline\)", "", d)
        short = short.replace("void ", "").replace("(GemvArgs)", "")
        c = funcs[n]
        print(f"| {path.split('/')[-1]} | {short} | {c['__total']} | " + " | ".join(str(c[o]) for o in OPS) + " |")
