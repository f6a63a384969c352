// Replications: read a dropped or chosen energy.json in the browser, show its key facts, check its
// consistency, grade it as `ecocompute check-regression` does and draw it on its class's curve.
"use strict";
(function () {
  const EC = window.EC;
  const D = EC.data;
  const out = EC.$("#result");
  const input = EC.$("#report-file");
  const drop = EC.$("#drop");
  const kInput = EC.$("#k");
  let last = null;

  // r: what the grader (EC.model.examine) made of the file.
  async function show(file, r) {
    const name = file.name;
    out.textContent = "";
    if (r.read_error) {
      out.append(EC.el("p", { class: "verdict refused", id: "verdict" }, "not readable"),
        EC.notice("error", "This file is not a report `ecocompute ingest` accepts:", [r.read_error]));
      return;
    }
    const row = r.row;
    if (!row.run_id) row.run_id = "(content hash)";
    const v = row.versions;
    out.append(EC.el("h2", {}, name));
    out.append(EC.el("ul", { class: "chips", id: "facts" },
      EC.chip("format", row.source_format === "ecocompute-report" ? "ecocompute" : "original " + r.schema_version.replace("ecocompute-energy/", "")),
      EC.chip("GPU", row.gpu + (row.gpu_arch ? ` (${row.gpu_arch})` : "")),
      EC.chip("model", row.model + (EC.isNum(row.params_b) ? ` · ${EC.g(row.params_b)} B` : "")),
      EC.chip("precision", row.precision + (row.weight_format ? " / " + row.weight_format : "")),
      EC.chip("basis", row.basis, row.basis === "measured" ? "good" : "warn"),
      EC.chip("ΔE vs FP16", EC.pct(row.vs_fp16_energy_pct, 2)),
      EC.chip("J/1k tok", EC.fmt(row.energy_j_per_1k_tok, 1)),
      EC.chip("FP16 J/1k tok", EC.fmt(row.fp16_energy_j_per_1k_tok, 1)),
      row.delta_perplexity_pct !== null ? EC.chip("ΔPPL", EC.pct(row.delta_perplexity_pct, 3)) : null,
      row.mean_kl_vs_fp16 !== null ? EC.chip("KL vs FP16", EC.fmt(row.mean_kl_vs_fp16, 4) + " nats") : null,
      row.top1_agreement_vs_fp16 !== null ? EC.chip("top-1 vs FP16", EC.pct(row.top1_agreement_vs_fp16 * 100, 1)) : null,
      row.measurement_source ? EC.chip("energy source", row.measurement_source) : null,
      row.session ? EC.chip("session", row.session) : null,
      v.torch ? EC.chip("torch", v.torch) : null,
      v.bitsandbytes ? EC.chip("bitsandbytes", v.bitsandbytes) : null,
      v["ecocompute.version"] ? EC.chip("ecocompute", v["ecocompute.version"] + (v["ecocompute.commit"] ? " @" + v["ecocompute.commit"] : "")) : null));
    out.append(EC.el("ul", { class: "chips", id: "consistency" },
      EC.chip("checks", "schema and internal consistency pass, as `ecocompute validate` checks them", "good")));
    if (!D || !D.curves) {
      out.append(EC.notice("warn", "This site has no fitted curves: no verdict."));
      return;
    }
    const k = Number(kInput.value);
    if (r.grade_error) {
      out.append(EC.el("p", { class: "verdict refused", id: "verdict" }, "not graded"),
        EC.notice("error", "No verdict:", [r.grade_error]));
      return;
    }
    const check = r.check;
    const c = EC.model.find(D.curves, check.gpu_arch, check.precision);
    const against = check.against === "anchors" ? "the mean of the same-size fit points" : "the fitted curve";
    out.append(EC.el("p", { class: "verdict " + check.verdict, id: "verdict" }, check.verdict),
      EC.el("p", { id: "verdict-detail" },
        `Measured ${EC.pct(check.measured_pct, 2)} against ${against}: expected ${EC.pct(check.expected_pct, 2)}, ` +
        `deviation ${EC.signed(check.deviation_pp, 2)} pp, band ± ${EC.fmt(check.band_pp, 2)} pp (k = ${k} × residual SD ${EC.fmt(c.resid_std, 2)}). ` +
        (check.verdict === "regression" ? "More energy than the band allows." : check.verdict === "improvement" ? "Less energy than the band allows." : "Inside the band.")));
    out.append(EC.table(Object.keys(check).map((key) => ({ key: key, label: key, num: typeof check[key] === "number" })), [check],
      { id: "regression", sortable: false, caption: "As `ecocompute check-regression --format json` prints it" }).node);

    // The report on its class's chart: the curve, the band, the fit points and this point.
    const lo = Math.min(c.n_min, row.params_b) / 1.6, hi = Math.max(c.n_max, row.params_b) * 1.6;
    const s = { name: `${c.arch} ${c.precision} curve`, color: EC.archColor(c.arch), curve: [], band: [], points: [] };
    const Ns = EC.logGrid(lo, hi, 100);
    const ys = await EC.model.curveValues(c.arch, c.precision, Ns);
    Ns.forEach((N, i) => {
      const y = ys[i];
      s.curve.push({ x: N, y: y, extrapolated: N < c.n_min || N > c.n_max });
      s.band.push({ x: N, lo: y - check.band_pp, hi: y + check.band_pp });
    });
    (c.anchors || []).forEach((a) => s.points.push({ x: a.N, y: a.dE, hollow: !(a.n >= 2),
      tip: `fit point\n${a.model} (${EC.g(a.N)} B) on ${a.gpu}\nΔE ${EC.pct(a.dE, 2)}, n = ${a.n}` }));
    const mine = { name: "this report", color: "#000000", points: [{ x: row.params_b, y: check.measured_pct, shape: "star",
      tip: `${name}\n${row.model} (${EC.g(row.params_b)} B)\nΔE ${EC.pct(check.measured_pct, 2)}: ${check.verdict}` }] };
    out.append(EC.chart({
      title: `${name} against ${c.arch} ${c.precision}`,
      xDomain: [lo, hi],
      series: [s, mine],
      legendNote: `Shaded: the check's band, curve ± ${EC.fmt(check.band_pp, 2)} pp (k × residual SD). ★ this report. Circles: the points the curve was fitted to (filled n ≥ 2, hollow n = 1).`,
      table: {
        title: "Data behind this chart",
        columns: [{ key: "what", label: "Point" }, { key: "N", label: "Size (B)", num: true, fmt: (p) => EC.g(p.N) },
          { key: "dE", label: "ΔE vs FP16 (%)", num: true, fmt: (p) => EC.signed(p.dE, 2) }, { key: "n", label: "n", num: true }],
        rows: (c.anchors || []).map((a) => ({ what: `${a.model} on ${a.gpu}`, N: a.N, dE: a.dE, n: a.n }))
          .concat([{ what: "this report: " + name, N: row.params_b, dE: check.measured_pct, n: 1 }]),
      },
    }));
  }

  // Grades `last` with the k in the form and shows it; a grader that fails to load says so.
  async function grade() {
    try {
      await show(last, await EC.model.examine(last.text, last.name, Number(kInput.value)));
    } catch (err) {
      out.textContent = "";
      out.append(EC.el("p", { class: "verdict refused", id: "verdict" }, "not graded"),
        EC.notice("error", "The report grader failed:", [String(err.message || err)]));
    }
  }

  function readFile(file) {
    if (!file) return;
    if (file.size > 20 * 1024 * 1024) {
      out.textContent = "";
      out.append(EC.notice("error", `${file.name} is ${Math.round(file.size / 1048576)} MiB: too large for an energy.json.`));
      return;
    }
    const reader = new FileReader();
    reader.onload = async () => {
      const bytes = reader.result;
      let text;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch (err) {
        out.textContent = "";
        out.append(EC.el("p", { class: "verdict refused", id: "verdict" }, "not readable"),
          EC.notice("error", `${file.name}: not UTF-8 text`));
        return;
      }
      last = { text: text, name: file.name };
      await grade();
    };
    reader.onerror = () => { out.textContent = ""; out.append(EC.notice("error", `${file.name}: ${reader.error}`)); };
    reader.readAsArrayBuffer(file);
  }
  input.addEventListener("change", () => readFile(input.files[0]));
  kInput.addEventListener("change", () => last && grade());
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    if (e.dataTransfer.files.length) readFile(e.dataTransfer.files[0]);
  });
})();
