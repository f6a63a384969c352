// Measured: the sortable, filterable table of every configuration (aggregate).
"use strict";
(function () {
  const EC = window.EC;
  const D = EC.data;
  if (!D) return;
  const m = (metric, field) => (r) => (r[metric] ? r[metric][field] : null);
  // Fourteen columns fit the page at its width; the spread of J/1k tok, power and the CVs are on the
  // sessions page and in `ecocompute aggregate`, which this table summarises.
  const cols = [
    { key: "gpu", label: "GPU", fmt: (r) => r.gpu + (r.gpu_arch ? ` (${r.gpu_arch})` : "") },
    { key: "model", label: "Model" },
    // Two significant digits below 10 M parameters (the tiny test models): 0.00016, not 0.000162624.
    { key: "params_b", label: "Size (B)", num: true, fmt: (r) => (EC.isNum(r.params_b) && r.params_b < 0.01 ? String(Number(r.params_b.toPrecision(2))) : EC.g(r.params_b)) },
    { key: "precision", label: "Precision", fmt: (r) => r.precision + (r.weight_format ? " / " + r.weight_format : "") },
    { key: "session", label: "Session" },
    { key: "n", label: "n", num: true },
    { key: "d_mean", label: "ΔE vs FP16 (%)", num: true, value: m("delta_pct", "mean"), fmt: (r) => EC.signed(m("delta_pct", "mean")(r), 2) },
    { key: "d_sd", label: "SD (pp)", num: true, value: m("delta_pct", "sd"), fmt: (r) => EC.fmt(m("delta_pct", "sd")(r), 2) },
    { key: "d_ci", label: "95 % CI (%)", value: m("delta_pct", "ci_low"),
      fmt: (r) => (r.delta_pct && EC.isNum(r.delta_pct.ci_low) ? `${EC.signed(r.delta_pct.ci_low, 1)} … ${EC.signed(r.delta_pct.ci_high, 1)}` : "—") },
    { key: "e_mean", label: "J/1k tok (FP16)", num: true, value: m("energy_j_per_1k_tok", "mean"),
      fmt: (r) => `${EC.fmt(m("energy_j_per_1k_tok", "mean")(r), 1)} (${EC.fmt(m("fp16_energy_j_per_1k_tok", "mean")(r), 1)})` },
    { key: "t_mean", label: "tok/s", num: true, value: m("throughput_tok_s", "mean"), fmt: (r) => EC.fmt(m("throughput_tok_s", "mean")(r), 1) },
    // Perplexity is deterministic: a configuration whose runs disagree on it is flagged (briefly,
    // so the table keeps to the page; the caption says what it means).
    { key: "delta_perplexity_pct", label: "ΔPPL (%)", num: true,
      fmt: (r) => EC.signed(r.delta_perplexity_pct, 3) + (r.perplexity_identical === false ? " ≠" : "") },
    // On synthetic weights these say how far quantization moves the next-token distribution.
    { key: "kl", label: "KL", title: "nats: mean KL(P_fp16 ‖ P_quant) per scored token, the runs' mean", num: true,
      value: m("mean_kl_vs_fp16", "mean"), fmt: (r) => EC.fmt(m("mean_kl_vs_fp16", "mean")(r), 4) },
    { key: "top1", label: "Top-1", title: "fraction of positions whose argmax equals FP16's, the runs' mean", num: true,
      value: m("top1_agreement_vs_fp16", "mean"), fmt: (r) => EC.pct1(m("top1_agreement_vs_fp16", "mean")(r)) },
  ];
  const t = EC.table(cols, D.configs, { id: "configs", caption: "ΔE: energy per token of the quantized model against FP16 in the same run; SD and CV across the configuration's runs; ΔPPL ≠: the runs' perplexities are not bit-identical; KL and top-1 against FP16 are the runs' means; runs without an energy meter give tok/s, KL and top-1 only", empty: "no measured configurations" });
  EC.$("#measured-table").append(t.node);

  const fill = (sel, values) => [...new Set(values)].filter(Boolean).sort().forEach((v) => sel.append(EC.el("option", { value: v }, v)));
  const fp = EC.$("#filter-precision"), fa = EC.$("#filter-arch"), ft = EC.$("#filter");
  fill(fp, D.configs.map((c) => c.precision));
  fill(fa, D.configs.map((c) => c.gpu_arch));
  const apply = () => {
    const q = ft.value.trim().toLowerCase();
    const rows = D.configs.filter((c) =>
      (!fp.value || c.precision === fp.value) && (!fa.value || c.gpu_arch === fa.value) &&
      (!q || [c.gpu, c.gpu_arch, c.model, c.precision, c.weight_format, c.session].join(" ").toLowerCase().includes(q)));
    t.render(rows);
    EC.$("#shown").textContent = `${rows.length} of ${D.configs.length} configurations`;
  };
  [fp, fa].forEach((s) => s.addEventListener("change", apply));
  ft.addEventListener("input", apply);
  apply();

  EC.$("#not-measured").append(EC.table([
    { key: "run_id", label: "Run" }, { key: "why", label: "Left out because" }, { key: "basis", label: "Basis" }, { key: "gpu", label: "GPU" },
    { key: "model", label: "Model" }, { key: "precision", label: "Precision" },
    { key: "vs_fp16_energy_pct", label: "ΔE (%) as reported", num: true, fmt: (r) => EC.signed(r.vs_fp16_energy_pct, 2) },
    { key: "source_path", label: "File" },
  ], D.not_measured, { empty: "none: every stored run is a measurement" }).node);
})();
