// Estimate: size, architecture, precision → the C++ estimator's answer, looked up in the site's
// precomputed rows (no estimate math in the browser).
"use strict";
(function () {
  const EC = window.EC;
  const D = EC.data;
  const out = EC.$("#estimate-out");
  const form = EC.$("#estimate-form");
  const size = EC.$("#params-b"), archSel = EC.$("#arch"), precSel = EC.$("#precision");
  const curves = D && D.curves;
  if (!curves) {
    out.append(EC.notice("warn", "This site has no fitted curves: nothing to estimate from."));
    return;
  }
  const list = EC.model.curveList(curves);
  const archs = new Set(list.map((c) => c.arch));
  Object.entries(curves.borrow || {}).forEach(([to, from]) => archs.has(from) && archs.add(to));
  [...archs].sort().forEach((a) => archSel.append(EC.el("option", { value: a }, a + (curves.curves[a] ? "" : " (borrowed)"))));
  const precisions = [...new Set(list.map((c) => c.precision))].sort();
  precisions.forEach((p) => precSel.append(EC.el("option", { value: p }, p)));
  if (archs.has("ada")) archSel.value = "ada";

  const sizes = (arch, precision) => EC.model.estimateRows(arch, precision).map((r) => r.params_b);

  function run() {
    out.textContent = "";
    const N = Number(size.value);
    const arch = archSel.value, precision = precSel.value;
    const rows = EC.model.estimateRows(arch, precision);
    let e;
    try {
      if (size.value.trim() === "" || !isFinite(N)) throw new Error(`model size must be a number, got '${size.value}'`);
      if (!rows.length) throw new Error(`no curve for ${arch} ${precision}`);
      e = EC.model.estimateAt(arch, precision, N);
      if (!e) {
        const below = sizes(arch, precision).filter((x) => x < N).pop(), above = sizes(arch, precision).find((x) => x > N);
        throw new Error(`this site holds estimates at ${rows.length} sizes; ${EC.g(N)} B is not one of them ` +
          `(nearest: ${[below, above].filter(EC.isNum).map(EC.g).join(" B and ")} B). ` +
          `ecocompute estimate --params-b ${EC.g(N)} --arch ${arch} --precision ${precision} answers any size.`);
      }
    } catch (err) {
      out.append(EC.notice("error", "No estimate:", [err.message]));
      return;
    }
    out.append(
      EC.el("p", { class: "big", id: "estimate-delta" }, `${EC.pct(e.delta_pct, 1)} energy per token vs FP16 — ${e.recommendation.replace(/_/g, " ")}`),
      EC.el("p", { id: "estimate-band" }, `95 % range ${EC.pct(e.ci_low, 1)} … ${EC.pct(e.ci_high, 1)} · basis `,
        EC.el("strong", {}, e.basis), ` · confidence ${e.confidence}`,
        e.energy_j_per_1k_tok !== null ? ` · ${EC.fmt(e.energy_j_per_1k_tok, 1)} J/1k tok (FP16 ${EC.fmt(e.fp16_energy_j_per_1k_tok, 1)})` : ""),
      e.notes ? EC.el("p", { class: "muted" }, e.notes) : "",
      EC.table(Object.keys(e).map((k) => ({ key: k, label: k, num: typeof e[k] === "number" })), [e],
        { id: "estimate-row", sortable: false, caption: "As ecocompute estimate prints it (batch 1, context 2048)" }).node);

    const c = EC.model.find(curves, arch, precision) || EC.model.find(curves, (curves.borrow || {})[arch], precision);
    const lo = Math.min(c.n_min, N) / 1.6, hi = Math.max(c.n_max, N) * 1.6;
    const s = { name: `${arch} ${precision}` + (c.arch !== arch ? ` (shape borrowed from ${c.arch})` : ""), color: EC.archColor(c.arch), curve: [], band: [], points: [] };
    rows.filter((r) => r.params_b >= lo && r.params_b <= hi).forEach((r) => {
      s.curve.push({ x: r.params_b, y: r.delta_pct, extrapolated: r.basis === "estimated" });
      s.band.push({ x: r.params_b, lo: r.ci_low, hi: r.ci_high });
    });
    (c.anchors || []).forEach((a) => s.points.push({ x: a.N, y: a.dE, hollow: !(a.n >= 2),
      tip: `fit point\n${a.model} (${EC.g(a.N)} B) on ${a.gpu}\nΔE ${EC.pct(a.dE, 2)}, n = ${a.n}` }));
    const mine = { name: "this estimate", color: "#000000", points: [{ x: N, y: e.delta_pct, sd: null, shape: "diamond",
      tip: `estimate for ${EC.g(N)} B on ${arch} ${precision}\nΔE ${EC.pct(e.delta_pct, 1)} (${EC.pct(e.ci_low, 1)} … ${EC.pct(e.ci_high, 1)})\n${e.basis}` }] };
    out.append(EC.chart({
      title: `Estimate for ${EC.g(N)} B on ${arch}, ${precision}`,
      xDomain: [lo, hi],
      series: [s, mine],
      legendNote: "Line: the estimate at each size of the site's table (dashed where estimated: outside the measured sizes or borrowed); shaded: its 95 % range. ◆ this estimate. Circles: measured points.",
      table: {
        title: "Data behind this chart",
        columns: [{ key: "what", label: "Point" }, { key: "N", label: "Size (B)", num: true, fmt: (p) => EC.g(p.N) },
          { key: "dE", label: "ΔE vs FP16 (%)", num: true, fmt: (p) => EC.signed(p.dE, 2) }],
        rows: (c.anchors || []).map((a) => ({ what: `fit point: ${a.model} on ${a.gpu}`, N: a.N, dE: a.dE }))
          .concat([{ what: "this estimate", N: N, dE: e.delta_pct }]),
      },
    }));
  }
  form.addEventListener("submit", (ev) => { ev.preventDefault(); run(); });
  [archSel, precSel].forEach((s) => s.addEventListener("change", run));
  run();
})();
