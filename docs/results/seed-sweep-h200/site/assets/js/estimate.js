// Estimate: size, architecture, precision → ΔE% with band and basis, from the curves in the page.
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

  function run() {
    out.textContent = "";
    const N = Number(size.value);
    const arch = archSel.value, precision = precSel.value;
    let e;
    try {
      if (size.value.trim() === "" || !isFinite(N)) throw new Error(`model size must be a number, got '${size.value}'`);
      e = EC.model.estimate(curves, N, arch, precision);
    } catch (err) {
      out.append(EC.notice("error", "No estimate:", [err.message]));
      return;
    }
    const row = EC.model.estimateRow(e, N, precision);
    out.append(
      EC.el("p", { class: "big", id: "estimate-delta" }, `${EC.pct(e.delta_pct, 1)} energy per token vs FP16`),
      EC.el("p", { id: "estimate-band" }, `95 % band ${EC.pct(e.band_low, 1)} … ${EC.pct(e.band_high, 1)} · basis `,
        EC.el("strong", {}, e.basis),
        e.energy_j_per_1k_tok !== null ? ` · ${EC.fmt(e.energy_j_per_1k_tok, 1)} J/1k tok (FP16 anchor ${EC.fmt(e.fp16_energy_j_per_1k_tok, 1)})` : ""),
      e.notes.length ? EC.el("ul", { class: "muted" }, e.notes.map((n) => EC.el("li", {}, n))) : "",
      EC.table(Object.keys(row).map((k) => ({ key: k, label: k, num: typeof row[k] === "number" })), [row],
        { id: "estimate-row", sortable: false, caption: "As `ecocompute estimate --format json` prints it" }).node);

    const c = EC.model.find(curves, e.arch_used, precision);
    const lo = Math.min(c.n_min, N) / 1.6, hi = Math.max(c.n_max, N) * 1.6;
    const s = { name: `${e.arch_used} ${precision} curve` + (e.basis === "borrowed" ? ` (borrowed for ${arch})` : ""), color: EC.archColor(e.arch_used), curve: [], band: [], points: [] };
    EC.logGrid(lo, hi, 100).forEach((x) => {
      const ex = EC.model.estimate(curves, x, arch, precision);
      s.curve.push({ x: x, y: ex.delta_pct, extrapolated: ex.basis !== "interpolated" });
      s.band.push({ x: x, lo: ex.band_low, hi: ex.band_high });
    });
    (c.anchors || []).forEach((a) => s.points.push({ x: a.N, y: a.dE, hollow: !(a.n >= 2),
      tip: `fit point\n${a.model} (${EC.g(a.N)} B) on ${a.gpu}\nΔE ${EC.pct(a.dE, 2)}, n = ${a.n}` }));
    const mine = { name: "this estimate", color: "#000000", points: [{ x: N, y: e.delta_pct, sd: null, shape: "diamond",
      tip: `estimate for ${EC.g(N)} B on ${arch} ${precision}\nΔE ${EC.pct(e.delta_pct, 2)} (${EC.pct(e.band_low, 1)} … ${EC.pct(e.band_high, 1)})\n${e.basis}` }] };
    out.append(EC.chart({
      title: `Estimate for ${EC.g(N)} B on ${arch}, ${precision}`,
      xDomain: [lo, hi],
      series: [s, mine],
      legendNote: "Line: the curve (dashed where extrapolated or borrowed); shaded: the 95 % band of an estimate at each size. ◆ this estimate. Circles: fit points.",
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
