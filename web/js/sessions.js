// Sessions: the repeatability table of each session and the cross-session gaps in noise units.
"use strict";
(function () {
  const EC = window.EC;
  const D = EC.data;
  if (!D) return;
  EC.$("#session-chips").append(EC.chip("sessions", D.sessions.length), EC.chip("session pairs sharing a configuration", D.comparisons.length));
  const cv = (metric) => (r) => (r[metric] ? r[metric].cv_pct : null);
  const box = EC.$("#repeatability");
  if (!D.sessions.length) box.append(EC.notice("warn", "No measured runs in the store."));
  D.sessions.forEach((s) => {
    const rows = D.configs.filter((c) => c.session === s.session);
    const repeated = rows.filter((c) => c.n >= 2).length;
    box.append(EC.el("h3", {}, s.session),
      EC.el("p", { class: "muted" }, `${s.runs} measured run(s), ${s.configs} configuration(s), ${repeated} of them with n ≥ 2.`),
      EC.table([
        { key: "model", label: "Model" },
        { key: "params_b", label: "N (B)", num: true, fmt: (r) => EC.g(r.params_b) },
        { key: "gpu", label: "GPU" },
        { key: "precision", label: "Precision", fmt: (r) => r.precision + (r.weight_format ? " / " + r.weight_format : "") },
        { key: "n", label: "n", num: true },
        { key: "mean", label: "ΔE vs FP16, mean", num: true, value: (r) => r.delta_pct.mean, fmt: (r) => EC.pct(r.delta_pct.mean, 1) },
        { key: "sd", label: "SD (pp)", num: true, value: (r) => r.delta_pct.sd, fmt: (r) => EC.fmt(r.delta_pct.sd, 1) },
        { key: "cv", label: "CV", num: true, value: cv("delta_pct"), fmt: (r) => (EC.isNum(cv("delta_pct")(r)) ? EC.fmt(cv("delta_pct")(r), 2) + " %" : "—") },
        { key: "cv_e", label: "CV of raw J/1k tok", title: "coefficient of variation of the absolute energy per 1000 tokens", num: true, value: cv("energy_j_per_1k_tok"), fmt: (r) => (EC.isNum(cv("energy_j_per_1k_tok")(r)) ? EC.fmt(cv("energy_j_per_1k_tok")(r), 2) + " %" : "—") },
        { key: "cv_f", label: "CV of the FP16 baseline", num: true, value: cv("fp16_energy_j_per_1k_tok"), fmt: (r) => (EC.isNum(cv("fp16_energy_j_per_1k_tok")(r)) ? EC.fmt(cv("fp16_energy_j_per_1k_tok")(r), 2) + " %" : "—") },
        { key: "cv_t", label: "Throughput CV", num: true, value: cv("throughput_tok_s"), fmt: (r) => (EC.isNum(cv("throughput_tok_s")(r)) ? EC.fmt(cv("throughput_tok_s")(r), 2) + " %" : "—") },
        { key: "cv_p", label: "Power CV", num: true, value: cv("avg_power_w"), fmt: (r) => (EC.isNum(cv("avg_power_w")(r)) ? EC.fmt(cv("avg_power_w")(r), 2) + " %" : "—") },
        { key: "ppl", label: "PPL identical", fmt: (r) => (r.perplexity_identical === null ? "—" : r.perplexity_identical ? "yes" : "NO") },
        { key: "kl", label: "KL (nats)", num: true, value: (r) => r.mean_kl_vs_fp16 && r.mean_kl_vs_fp16.mean, fmt: (r) => EC.fmt(r.mean_kl_vs_fp16 && r.mean_kl_vs_fp16.mean, 4) },
        { key: "top1", label: "Top-1", num: true, value: (r) => r.top1_agreement_vs_fp16 && r.top1_agreement_vs_fp16.mean, fmt: (r) => EC.pct1(r.top1_agreement_vs_fp16 && r.top1_agreement_vs_fp16.mean) },
      ], rows.filter((r) => r.delta_pct), { caption: "n independent runs per row; SD is the sample standard deviation (ddof = 1), CV = SD/|mean|; empty for n = 1" }).node);
  });

  const gaps = EC.$("#gaps");
  if (!D.comparisons.length) gaps.append(EC.el("p", { class: "muted" }, "No two sessions share a configuration yet."));
  D.comparisons.forEach((c, i) => {
    gaps.append(EC.el("h3", {}, `${c.a}  →  ${c.b}`));
    gaps.append(EC.el("ul", { class: "chips" },
      EC.chip("version stacks", c.comparable ? "comparable" : "NOT comparable", c.comparable ? "good" : "bad"),
      EC.chip("shared configurations", c.rows.length),
      c.only_a.length ? EC.chip("only in A", c.only_a.length) : null,
      c.only_b.length ? EC.chip("only in B", c.only_b.length) : null));
    gaps.append(EC.el("p", { class: c.comparable ? "muted" : "notice error" }, c.verdict));
    const fmtSide = (s) => (s ? `${EC.pct(s.mean, 1)}` + (EC.isNum(s.sd) ? ` ± ${EC.fmt(s.sd, 1)}` : "") + ` (n=${s.n})` : "—");
    const cols = [
      { key: "configuration", label: "Configuration" },
      { key: "params_b", label: "N (B)", num: true, fmt: (r) => EC.g(r.params_b) },
      { key: "a", label: "A: ΔE mean ± SD", num: true, value: (r) => r.a && r.a.mean, fmt: (r) => fmtSide(r.a) },
      { key: "b", label: "B: ΔE mean ± SD", num: true, value: (r) => r.b && r.b.mean, fmt: (r) => fmtSide(r.b) },
      { key: "gap_pp", label: "Gap (pp)", num: true, fmt: (r) => EC.signed(r.gap_pp, 1) },
      { key: "noise_pp", label: "Noise (pp)", num: true, fmt: (r) => EC.fmt(r.noise_pp, 1), title: "quadratic mean of the SDs that exist" },
      { key: "gap_in_noise", label: "Gap in noise units", num: true, fmt: (r) => (EC.isNum(r.gap_in_noise) ? EC.fmt(r.gap_in_noise, 1) + "×" : "—") },
      { key: "welch_p", label: "Welch p", num: true, fmt: (r) => (EC.isNum(r.welch_p) ? r.welch_p.toPrecision(3) : "—") },
      { key: "energy_drift_pct", label: "J/1k drift", num: true, fmt: (r) => EC.pct(r.energy_drift_pct, 1) },
      { key: "fp16_energy_drift_pct", label: "FP16 drift", num: true, fmt: (r) => EC.pct(r.fp16_energy_drift_pct, 1) },
      { key: "kl", label: "KL A → B (nats)", num: true, value: (r) => r.kl_b && r.kl_b.mean,
        fmt: (r) => (r.kl_a || r.kl_b ? `${EC.fmt(r.kl_a && r.kl_a.mean, 4)} → ${EC.fmt(r.kl_b && r.kl_b.mean, 4)}` : "—") },
      { key: "top1", label: "Top-1 A → B", num: true, value: (r) => r.top1_b && r.top1_b.mean,
        fmt: (r) => (r.top1_a || r.top1_b ? `${EC.pct1(r.top1_a && r.top1_a.mean)} → ${EC.pct1(r.top1_b && r.top1_b.mean)}` : "—") },
    ];
    const side = (name, key, color, shape) => ({
      name: name, color: color,
      points: c.rows.filter((r) => r[key] && EC.isNum(r.params_b)).map((r) => ({
        x: r.params_b, y: r[key].mean, sd: r[key].n >= 2 ? r[key].sd : null, hollow: r[key].n < 2, shape: shape,
        tip: `${name}\n${r.configuration}\nΔE ${EC.pct(r[key].mean, 1)}` + (EC.isNum(r[key].sd) ? ` ± ${EC.fmt(r[key].sd, 1)}` : "") + ` (n=${r[key].n})`,
      })),
    });
    gaps.append(EC.chart({
      title: `ΔE vs FP16 in ${c.a} and ${c.b}`,
      series: [side("A: " + c.a, "a", EC.palette[0], "circle"), side("B: " + c.b, "b", EC.palette[3], "square")],
      legendNote: "Filled: n ≥ 2 with ±1 SD bars; hollow: n = 1.",
      table: { title: "Data behind this chart: the gap of each shared configuration", columns: cols, rows: c.rows },
    }));
    gaps.lastChild.id = "gap-" + i;
  });
})();
