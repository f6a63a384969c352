// Method: the protocol, meter, quality and version settings the runs recorded, per session; the
// curve model and rules as the curves file states them.
"use strict";
(function () {
  const EC = window.EC;
  const D = EC.data;
  if (!D) return;
  const labels = {
    batch_size: "batch size", context_length: "context length (tokens)", generated_tokens_per_iter: "tokens generated per iteration",
    decode_iterations: "decode iterations per run", warmup: "warmup iterations", measurement_source: "energy source",
    sampling_rate_hz: "power sampling rate (Hz)", quantization_backend: "quantization backend",
    quality_corpus_sha256: "quality corpus SHA-256", quality_tokens_evaluated: "tokens evaluated", quality_seq_len: "window length (tokens)",
  };
  const settingRows = (list) => list.map((s) => ({
    name: labels[s.name] || s.name,
    values: s.values.map((v) => (s.values.length > 1 ? `${v.value} (${v.runs} runs)` : v.value)).join(", "),
    varies: s.values.length > 1,
  }));
  const box = EC.$("#method-sessions");
  if (!D.method.length) box.append(EC.notice("warn", "No measured runs: nothing to describe."));
  D.method.forEach((m) => {
    box.append(EC.el("h3", {}, `Session ${m.session}`),
      EC.el("ul", { class: "chips" }, EC.chip("runs", m.runs), EC.chip("GPUs", m.gpus.join(", ")), EC.chip("precisions", m.precisions.join(", "))));
    for (const [title, list] of [["Protocol", m.protocol], ["Meter", m.meter], ["Quality probe", m.quality], ["Version stack", m.versions]]) {
      if (!list.length) continue;
      const rows = settingRows(list);
      const varying = rows.filter((r) => r.varies).length;
      box.append(EC.table([
        { key: "name", label: title },
        { key: "values", label: "Value(s) recorded", fmt: (r) => r.values + (r.varies ? "  ← differs between runs" : "") },
      ], rows, { sortable: false, class: "settings", caption: varying ? `${varying} setting(s) differ between runs of this session` : null }).node);
    }
  });

  const c = D.curves;
  const cb = EC.$("#method-curves");
  if (!c) {
    cb.append(EC.notice("warn", "No curves: " + (D.warnings || []).join("; ")));
    return;
  }
  cb.append(
    EC.el("p", {}, "Model: ", EC.el("code", {}, c.model), ` — fitted per (architecture, precision), ${D.curves_source}.`),
    EC.el("ul", {},
      EC.el("li", {}, `Bounds: A ∈ [−50, max ΔE + 50]; S ∈ [0, S_cap + max(0, max ΔE)] with S_cap = ${Object.entries(c.s_cap || {}).map(([k, v]) => k + " " + v).join(", ")}; N* ∈ [0.1, 200] B. Fewer than 3 points: N* fixed at the median size.`),
      EC.el("li", {}, "Residual SD = √(mean residual²); leave-one-out mean absolute error for 4 or more points."),
      EC.el("li", {}, "Estimate: at a measured size, the mean of the class's measurements (basis measured, 95 % range at least half the cards' spread); elsewhere ΔE from the curve (never below −S_cap), 95 % range ΔE ± 1.96·σ, σ² = base² + extrap² + borrowed², base = max(residual SD, 2), extrap = (base + 4)·1.2·|ln(N / nearest end of the measured range)|, borrowed = 10 points; interpolated inside the measured sizes, estimated outside or when borrowed. The pages show the command line's answers, precomputed at a table of sizes (docs/api.md)."),
      EC.el("li", {}, "Borrowed classes (no measurements of their own): " + (Object.entries(c.borrow || {}).map(([to, from]) => `${to} ← ${from}`).join(", ") || "none") + "."),
      EC.el("li", {}, "Regression check (replications page, `ecocompute check-regression`): a measured report is compared with the mean of the same-size fit points of its class when there are any, else with the curve; band ± k·residual SD (k = 2 by default): above it a regression, below it an improvement, inside it within.")));
})();
