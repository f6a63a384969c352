// Overview: one crossover chart per precision (curves, bands, fit points, session means), and the
// table of fitted curves.
"use strict";
(function () {
  const EC = window.EC;
  const D = EC.data;
  if (!D) return;
  const curves = D.curves;
  const list = EC.model.curveList(curves);

  const chips = EC.$("#overview-chips");
  chips.append(
    EC.chip("measured runs", D.counts.measured),
    EC.chip("configurations", D.counts.configs),
    EC.chip("sessions", D.counts.sessions),
    EC.chip("curves", curves ? list.length + " (" + D.curves_source + ")" : "none", curves ? null : "warn"),
  );
  if (D.counts.not_measured) chips.append(EC.chip("stored but not measured (left out)", D.counts.not_measured, "warn"));
  (D.left_out || []).forEach((g) => chips.append(EC.chip("left out: " + g.reason, g.runs, "warn")));

  const precisions = new Set(list.map((c) => c.precision));
  D.configs.forEach((c) => { if (c.precision !== "FP16") precisions.add(c.precision); });
  const box = EC.$("#overview-charts");
  if (!precisions.size) {
    box.append(EC.notice("warn", "No measured configurations and no curves yet: ingest reports (`ecocompute ingest`) or pass files to `ecocompute site`."));
    return;
  }

  const tipFor = (lines) => lines.filter(Boolean).join("\n");
  [...precisions].sort().forEach((precision) => {
    const archs = new Set(list.filter((c) => c.precision === precision).map((c) => c.arch));
    D.configs.forEach((c) => { if (c.precision === precision && c.delta_pct) archs.add(c.gpu_arch || "unknown"); });
    const allN = [];
    list.forEach((c) => { if (c.precision === precision) allN.push(c.n_min, c.n_max); });
    D.configs.forEach((c) => { if (c.precision === precision && EC.isNum(c.params_b)) allN.push(c.params_b); });
    const lo = Math.min.apply(null, allN) / 1.6, hi = Math.max.apply(null, allN) * 1.6;
    const series = [];
    const rows = [];
    [...archs].sort().forEach((arch) => {
      const s = { name: `${arch} ${precision}`, color: EC.archColor(arch), curve: [], band: [], points: [] };
      const c = EC.model.find(curves, arch, precision);
      if (c) {
        EC.model.estimateRows(arch, precision).filter((r) => r.params_b >= lo && r.params_b <= hi).forEach((r) => {
          s.curve.push({ x: r.params_b, y: r.delta_pct, extrapolated: r.basis === "estimated" });
          s.band.push({ x: r.params_b, lo: r.ci_low, hi: r.ci_high });
        });
        (c.anchors || []).forEach((a) => {
          s.points.push({ x: a.N, y: a.dE, n: a.n, hollow: !(a.n >= 2), shape: "circle",
            tip: tipFor([`${arch} ${precision} · fit point`, `${a.model} (${EC.g(a.N)} B) on ${a.gpu}`, `ΔE ${EC.pct(a.dE, 2)}`, `n = ${a.n} trial(s)`]) });
          rows.push({ series: s.name, kind: "fit point", model: a.model, gpu: a.gpu, session: "—", N: a.N, dE: a.dE, sd: null, n: a.n });
        });
      }
      D.configs.filter((k) => k.precision === precision && (k.gpu_arch || "unknown") === arch && k.delta_pct && EC.isNum(k.params_b))
        .forEach((k) => {
          const d = k.delta_pct;
          s.points.push({ x: k.params_b, y: d.mean, sd: d.n >= 2 ? d.sd : null, n: d.n, hollow: d.n < 2, shape: "square",
            tip: tipFor([`${arch} ${precision} · session ${k.session}`, `${k.model} (${EC.g(k.params_b)} B) on ${k.gpu}`,
              `ΔE ${EC.pct(d.mean, 2)}` + (d.n >= 2 ? ` ± ${EC.fmt(d.sd, 2)} (SD)` : ""), `n = ${d.n} run(s)`]) });
          rows.push({ series: s.name, kind: "session mean", model: k.model, gpu: k.gpu, session: k.session, N: k.params_b, dE: d.mean, sd: d.sd, n: d.n });
        });
      series.push(s);
    });
    box.append(EC.chart({
      title: `${precision}: energy per token against FP16, by model size`,
      xDomain: [lo, hi],
      series: series,
      legendNote: "Line: fitted curve (dashed: extrapolated); shaded: its 95 % band. ● circle: a point the curve was fitted to; ■ square: a session's mean in the store. Filled: n ≥ 2 (bars: ±1 SD); hollow: n = 1. Dashed black line: no change against FP16.",
      table: {
        title: `Data behind the ${precision} chart (${rows.length} points)`,
        columns: [
          { key: "series", label: "Series" }, { key: "kind", label: "Kind" }, { key: "model", label: "Model" },
          { key: "gpu", label: "GPU" }, { key: "session", label: "Session" },
          { key: "N", label: "Size (B)", num: true, fmt: (r) => EC.g(r.N) },
          { key: "dE", label: "ΔE vs FP16 (%)", num: true, fmt: (r) => EC.signed(r.dE, 2) },
          { key: "sd", label: "SD (pp)", num: true, fmt: (r) => EC.fmt(r.sd, 2) },
          { key: "n", label: "n", num: true },
        ],
        rows: rows,
      },
    }));
  });

  const table = EC.table([
    { key: "arch", label: "Architecture" }, { key: "precision", label: "Precision" },
    { key: "n_points", label: "Points", num: true, value: (c) => (c.anchors || []).length, fmt: (c) => String((c.anchors || []).length) },
    { key: "A", label: "A (%)", num: true, fmt: (c) => EC.fmt(c.A, 2) },
    { key: "S", label: "S (pp)", num: true, fmt: (c) => EC.fmt(c.S, 2) },
    { key: "Nstar", label: "N* (B)", num: true, fmt: (c) => EC.fmt(c.Nstar, 3) + (c.nstar_fixed ? " (fixed)" : "") },
    { key: "resid_std", label: "Residual SD (pp)", num: true, fmt: (c) => EC.fmt(c.resid_std, 2) },
    { key: "loo_mae", label: "LOO MAE (pp)", num: true, fmt: (c) => EC.fmt(c.loo_mae, 2) },
    { key: "range", label: "Measured sizes (B)", value: (c) => c.n_min, fmt: (c) => `${EC.g(c.n_min)}–${EC.g(c.n_max)}` },
    { key: "crossover_b", label: "Crossover (B)", num: true, fmt: (c) => (EC.isNum(c.crossover_b) ? EC.fmt(c.crossover_b, 2) : "none") },
  ], list, { id: "curves", empty: "no curves" });
  EC.$("#curve-table").append(table.node);
  const borrowed = curves && curves.borrowed ? Object.entries(curves.borrowed) : [];
  if (borrowed.length) {
    EC.$("#curve-table").append(EC.el("p", { class: "muted" }, "Borrowed (estimates, no measurements): " +
      borrowed.map(([to, ps]) => Object.entries(ps).map(([p, b]) => `${to} ${p} ← ${b.from}`).join(", ")).join("; ")));
  }
})();
