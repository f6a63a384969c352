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

  function show(file) {
    const name = file.name;
    out.textContent = "";
    let row;
    try {
      row = EC.model.parseReport(file.text, name);
      if (row.run_id_from_hash && file.hashId) row.run_id = file.hashId;
    } catch (err) {
      out.append(EC.el("p", { class: "verdict refused", id: "verdict" }, "not readable"),
        EC.notice("error", "This file cannot be read as an energy.json:", [err.message]));
      return;
    }
    const v = row.versions;
    out.append(EC.el("h2", {}, name));
    out.append(EC.el("ul", { class: "chips", id: "facts" },
      EC.chip("format", row.source_format === "ecocompute-report" ? "ecocompute" : "original " + row.schema_version.replace("ecocompute-energy/", "")),
      EC.chip("GPU", row.gpu + (row.gpu_arch ? ` (${row.gpu_arch})` : "")),
      EC.chip("model", row.model + (EC.isNum(row.params_b) ? ` · ${EC.g(row.params_b)} B` : "")),
      EC.chip("precision", row.precision + (row.weight_format ? " / " + row.weight_format : "")),
      EC.chip("basis", row.basis, row.basis === "measured" ? "good" : "warn"),
      EC.chip("ΔE vs FP16", EC.pct(row.vs_fp16_energy_pct, 2)),
      EC.chip("J/1k tok", EC.fmt(row.energy_j_per_1k_tok, 1)),
      EC.chip("FP16 J/1k tok", EC.fmt(row.fp16_energy_j_per_1k_tok, 1)),
      row.delta_perplexity_pct !== null ? EC.chip("ΔPPL", EC.pct(row.delta_perplexity_pct, 3)) : null,
      row.measurement_source ? EC.chip("energy source", row.measurement_source) : null,
      row.session ? EC.chip("session", row.session) : null,
      v.torch ? EC.chip("torch", v.torch) : null,
      v.bitsandbytes ? EC.chip("bitsandbytes", v.bitsandbytes) : null,
      v["ecocompute.version"] ? EC.chip("ecocompute", v["ecocompute.version"] + (v["ecocompute.commit"] ? " @" + v["ecocompute.commit"] : "")) : null));
    const checks = EC.model.consistency(row);
    if (checks.length) {
      out.append(EC.el("ul", { class: "chips", id: "consistency" },
        checks.map((c) => EC.chip(c.ok ? "consistent" : "INCONSISTENT", c.text, c.ok ? "good" : "bad"))));
    }
    if (!D || !D.curves) {
      out.append(EC.notice("warn", "This site has no fitted curves: no verdict."));
      return;
    }
    const k = Number(kInput.value);
    let r;
    try {
      if (!(k > 0)) throw new Error(`k must be a positive number, got '${kInput.value}'`);
      r = EC.model.checkRegression(D.curves, row, k);
    } catch (err) {
      out.append(EC.el("p", { class: "verdict refused", id: "verdict" }, "not graded"),
        EC.notice("error", "No verdict:", [err.message]));
      return;
    }
    const against = r.against === "anchors" ? "the mean of the same-size fit points" : "the fitted curve";
    out.append(EC.el("p", { class: "verdict " + r.verdict, id: "verdict" }, r.verdict),
      EC.el("p", { id: "verdict-detail" },
        `Measured ${EC.pct(r.measured_pct, 2)} against ${against}: expected ${EC.pct(r.expected_pct, 2)}, ` +
        `deviation ${EC.signed(r.deviation_pp, 2)} pp, band ± ${EC.fmt(r.band_pp, 2)} pp (k = ${k} × residual SD ${EC.fmt(r.curve.resid_std, 2)}). ` +
        (r.verdict === "regression" ? "More energy than the band allows." : r.verdict === "improvement" ? "Less energy than the band allows." : "Inside the band.")));
    const rowOut = EC.model.regressionRow(r, row);
    out.append(EC.table(Object.keys(rowOut).map((key) => ({ key: key, label: key, num: typeof rowOut[key] === "number" })), [rowOut],
      { id: "regression", sortable: false, caption: "As `ecocompute check-regression --format json` prints it" }).node);

    // The report on its class's chart: the curve, the band, the fit points and this point.
    const c = r.curve;
    const lo = Math.min(c.n_min, row.params_b) / 1.6, hi = Math.max(c.n_max, row.params_b) * 1.6;
    const s = { name: `${c.arch} ${c.precision} curve`, color: EC.archColor(c.arch), curve: [], band: [], points: [] };
    EC.logGrid(lo, hi, 100).forEach((N) => {
      const y = EC.model.curveValue(c, N);
      s.curve.push({ x: N, y: y, extrapolated: N < c.n_min || N > c.n_max });
      s.band.push({ x: N, lo: y - r.band_pp, hi: y + r.band_pp });
    });
    (c.anchors || []).forEach((a) => s.points.push({ x: a.N, y: a.dE, hollow: !(a.n >= 2),
      tip: `fit point\n${a.model} (${EC.g(a.N)} B) on ${a.gpu}\nΔE ${EC.pct(a.dE, 2)}, n = ${a.n}` }));
    const mine = { name: "this report", color: "#000000", points: [{ x: row.params_b, y: r.measured_pct, shape: "star",
      tip: `${name}\n${row.model} (${EC.g(row.params_b)} B)\nΔE ${EC.pct(r.measured_pct, 2)}: ${r.verdict}` }] };
    out.append(EC.chart({
      title: `${name} against ${c.arch} ${c.precision}`,
      xDomain: [lo, hi],
      series: [s, mine],
      legendNote: `Shaded: the check's band, curve ± ${EC.fmt(r.band_pp, 2)} pp (k × residual SD). ★ this report. Circles: the points the curve was fitted to (filled n ≥ 2, hollow n = 1).`,
      table: {
        title: "Data behind this chart",
        columns: [{ key: "what", label: "Point" }, { key: "N", label: "Size (B)", num: true, fmt: (p) => EC.g(p.N) },
          { key: "dE", label: "ΔE vs FP16 (%)", num: true, fmt: (p) => EC.signed(p.dE, 2) }, { key: "n", label: "n", num: true }],
        rows: (c.anchors || []).map((a) => ({ what: `${a.model} on ${a.gpu}`, N: a.N, dE: a.dE, n: a.n }))
          .concat([{ what: "this report: " + name, N: row.params_b, dE: r.measured_pct, n: 1 }]),
      },
    }));
  }

  // The run id of a report without one: "content:" + the first 16 hex digits of the SHA-256 of
  // the fields that identify the run, as `ingest` computes it (content_run_id in
  // src/analysis/import_report.cpp); crypto.subtle works on file:// and localhost.
  const kIdentity = ["timestamp_utc", "gpu", "gpu_arch", "model", "params_b", "precision", "weight_format",
    "batch_size", "basis", "energy_j_per_1k_tok", "fp16_energy_j_per_1k_tok", "vs_fp16_energy_pct",
    "total_energy_j", "throughput_tok_s", "avg_power_w", "perplexity"];
  async function runIdFor(row) {
    if (!(window.crypto && crypto.subtle)) return null;
    const text = kIdentity.map((n) => {
      const v = row[n];
      return n + "=" + (v === null || v === undefined ? "" : String(v)) + "\x1f";
    }).join("");
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
    return "content:" + [...digest].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, 16);
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
      let hashId = null;
      try {
        hashId = await runIdFor(EC.model.parseReport(text, file.name));
      } catch (err) {
        // show() explains a report that does not parse.
      }
      last = { text: text, name: file.name, hashId: hashId };
      show(last);
    };
    reader.onerror = () => { out.textContent = ""; out.append(EC.notice("error", `${file.name}: ${reader.error}`)); };
    reader.readAsArrayBuffer(file);
  }
  input.addEventListener("change", () => readFile(input.files[0]));
  kInput.addEventListener("change", () => last && show(last));
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    if (e.dataTransfer.files.length) readFile(e.dataTransfer.files[0]);
  });
})();
