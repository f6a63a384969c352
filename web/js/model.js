// The numbers the pages need: estimates looked up in the C++ estimator's precomputed rows; reading an
// energy.json (import_report.cpp) and `ecocompute check-regression` (estimate.cpp), ported line for
// line so a report chosen in the browser is graded as the command line grades it.
"use strict";
(function () {
  const EC = window.EC;
  const M = (EC.model = {});
  const Z95 = 1.959964;
  const BASES = ["measured", "interpolated", "extrapolated", "unavailable"];

  M.curveValue = (c, N) => {
    const x = N / c.Nstar;
    return c.A - (c.S * x) / (1.0 + x);
  };
  M.sCap = (precision) => (precision === "INT8" ? 50.0 : 75.0);

  // Curves in curves.json layout → a list of {arch, precision, ...} sorted like CurveSet.
  M.curveList = function (curves) {
    const out = [];
    if (!curves || !curves.curves) return out;
    for (const arch of Object.keys(curves.curves).sort())
      for (const precision of Object.keys(curves.curves[arch]).sort())
        out.push(Object.assign({ arch: arch, precision: precision }, curves.curves[arch][precision]));
    return out;
  };
  M.find = function (curves, arch, precision) {
    const a = curves && curves.curves && curves.curves[arch];
    return a && a[precision] ? Object.assign({ arch: arch, precision: precision }, a[precision]) : null;
  };
  const classes = (curves) => M.curveList(curves).map((c) => c.arch + "/" + c.precision).join(", ");

  // The estimates come precomputed by the C++ estimator (site data `estimates`, one row per size as
  // `ecocompute estimate` prints it): the pages look rows up and never compute an estimate.
  M.estimateRows = (arch, precision) => (EC.data && EC.data.estimates && EC.data.estimates[arch + "/" + precision]) || [];
  M.estimateAt = (arch, precision, N) => M.estimateRows(arch, precision).find((r) => Math.abs(r.params_b - N) < 1e-6) || null;

  // report::why_not_a_measurement (src/report/measurement_rule.cpp): "" for a hardware measurement.
  M.whyNotAMeasurement = function (basis, source) {
    if (basis !== "measured") return `basis is '${basis || "(none)"}', not 'measured'`;
    if (!source) return "basis 'measured' but no measurement_source names a meter";
    const lower = source.toLowerCase();
    for (const word of ["illustrative", "synthetic", "simulated", "not a real"]) {
      if (lower.includes(word)) return `its measurement_source says it is ${word === "not a real" ? "not real" : word}: '${source}'`;
    }
    if (!["nvml", "direct-nvml", "rapl"].some((p) => source.startsWith(p)))
      return `measurement_source '${source}' is not a hardware meter (nvml*, direct-nvml, rapl*)`;
    return "";
  };

  // analysis::check_regression
  M.checkRegression = function (curves, row, k) {
    const why = M.whyNotAMeasurement(row.basis, row.measurement_source);
    if (why) throw new Error(`${row.source_path}: not a measurement (${why}): only a measurement can be graded`);
    if (row.vs_fp16_energy_pct === null || row.params_b === null)
      throw new Error(`${row.source_path}: the report has no vs_fp16_energy_pct or params_b to grade`);
    const c = M.find(curves, row.gpu_arch, row.precision);
    if (!c) throw new Error(`${row.source_path}: no curve for ${row.gpu_arch} ${row.precision} (curves: ${classes(curves)})`);
    const r = { curve: c };
    r.measured_pct = row.vs_fp16_energy_pct;
    r.band_pp = k * c.resid_std;
    let sum = 0.0, count = 0;
    for (const a of c.anchors || []) {
      if (Math.abs(a.N - row.params_b) < 1e-6) { sum += a.dE; ++count; }
    }
    if (count > 0) { r.against = "anchors"; r.expected_pct = sum / count; }
    else { r.against = "curve"; r.expected_pct = M.curveValue(c, row.params_b); }
    r.deviation_pp = r.measured_pct - r.expected_pct;
    if (r.deviation_pp > r.band_pp) r.verdict = "regression";
    else if (r.deviation_pp < -r.band_pp) r.verdict = "improvement";
    else r.verdict = "within";
    return r;
  };

  // analysis::regression_table's row.
  M.regressionRow = (r, row) => ({
    run_id: row.run_id, gpu_arch: row.gpu_arch, params_b: row.params_b, precision: row.precision,
    measured_pct: EC.r2(r.measured_pct), expected_pct: EC.r2(r.expected_pct), against: r.against,
    band_pp: EC.r2(r.band_pp), deviation_pp: EC.r2(r.deviation_pp), verdict: r.verdict,
  });

  // ---- reading an energy.json (analysis/import_report.cpp) ----

  function typeName(v) {
    if (v === null) return "null";
    if (Array.isArray(v)) return "array";
    if (typeof v === "number") return Number.isInteger(v) ? "number" : "number";
    return typeof v === "boolean" ? "boolean" : typeof v === "string" ? "string" : "object";
  }

  function Reader(root, path) {
    const find = (dotted) => {
      let node = root;
      for (const key of dotted.split(".")) {
        if (node === null || typeof node !== "object" || Array.isArray(node) || !(key in node)) return null;
        node = node[key];
      }
      return node === null ? null : node;
    };
    const wrong = (field, expected, got) => {
      const shown = got !== null && typeof got === "object" ? "" : JSON.stringify(got).slice(0, 40);
      throw new Error(`${path}: field '${field}': expected ${expected}, got ${typeName(got)} ${shown}`);
    };
    return {
      find: find,
      number(f) {
        const v = find(f);
        if (v === null) return null;
        if (typeof v !== "number") wrong(f, "a number", v);
        return v;
      },
      integer(f) {
        const v = find(f);
        if (v === null) return null;
        if (typeof v === "number" && Number.isInteger(v)) return v;
        wrong(f, "an integer", v);
      },
      text(f) {
        const v = find(f);
        if (v === null) return "";
        if (typeof v !== "string") wrong(f, "a string", v);
        return v;
      },
      requiredText(f) {
        const s = this.text(f);
        if (!s) throw new Error(`${path}: missing required field '${f}'`);
        return s;
      },
      object(f) {
        const v = find(f);
        if (v !== null && (typeof v !== "object" || Array.isArray(v))) wrong(f, "an object", v);
        return v;
      },
    };
  }

  function parseJson(text, path) {
    if (/(^|[^"\w])-?(NaN|Infinity)\b/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""')))
      throw new Error(`${path}: not valid JSON: NaN/Infinity is not a JSON number`);
    try {
      return JSON.parse(text);
    } catch (err) {
      if (/end of (JSON )?input|Unterminated/i.test(err.message))
        throw new Error(`${path}: not valid JSON: the text ends early (truncated file?)`);
      throw new Error(`${path}: not valid JSON: ${err.message}`);
    }
  }

  const scalarText = (v) =>
    typeof v === "string" ? v : typeof v === "boolean" ? (v ? "True" : "False") : typeof v === "number" ? String(v) : null;

  function utcDay(ts) {
    return /^\d{4}-\d{2}-\d{2}/.test(ts || "") ? ts.slice(0, 10) : "";
  }

  // Returns a RunRow-like object; throws Error naming the file and field, like the C++ reader.
  M.parseReport = function (text, path) {
    const root = parseJson(text, path);
    if (root === null || typeof root !== "object" || Array.isArray(root))
      throw new Error(`${path}: expected a JSON object at the top level`);
    const r = Reader(root, path);
    r.requiredText("schema_version");
    if (!r.object("results")) throw new Error(`${path}: missing required object 'results'`);
    const engine = r.object("engine"), build = r.object("build"), meter = r.object("meter");
    const row = { source_path: path, versions: {} };
    row.schema_version = r.text("schema_version");
    row.source_format = engine || build || meter ? "ecocompute-report" : "original-report";
    row.run_id = r.text("run_id") || r.text("run.id");
    // The original's reports carry no id: the page fills in the content hash (see replications.js).
    row.run_id_from_hash = !row.run_id;
    if (!row.run_id) row.run_id = "(content hash)";
    row.timestamp_utc = r.text("timestamp_utc");
    row.session = r.text("session") || utcDay(row.timestamp_utc);
    row.replicate = r.integer("replicate");
    row.gpu = r.requiredText("system_under_test.gpu");
    row.gpu_arch = r.text("system_under_test.gpu_arch");
    row.model = r.requiredText("workload.model_name");
    row.params_b = r.number("workload.params_b");
    row.precision = r.requiredText("workload.precision");
    row.batch_size = r.integer("workload.batch_size");
    row.context_length = r.integer("workload.context_length");
    row.weight_format = r.text("engine.weight_format");
    row.quantization_backend = r.text("workload.quantization_backend") || (engine ? "ecocompute" : "");
    row.generated_tokens_per_iter = r.integer("measurement.tokens_per_run");
    row.decode_iterations = r.integer("measurement.iterations");
    row.warmup = r.integer("measurement.warmup");
    row.sampling_rate_hz = r.integer("measurement.sample_rate_hz");
    row.measurement_source = r.text("measurement_source");
    row.basis = r.requiredText("results.basis");
    if (!BASES.includes(row.basis))
      throw new Error(`${path}: field 'results.basis': expected measured/interpolated/extrapolated/unavailable, got '${row.basis}'`);
    row.energy_j_per_1k_tok = r.number("results.energy_per_token_mj");
    row.fp16_energy_j_per_1k_tok = r.number("results.fp16_energy_per_token_mj");
    row.vs_fp16_energy_pct = r.number("results.vs_fp16_energy_pct");
    row.throughput_tok_s = r.number("results.throughput_tokens_per_s");
    row.avg_power_w = r.number("results.avg_power_watts");
    row.total_energy_j = r.number("results.total_energy_joules");
    row.tokens_generated = r.integer("results.tokens_generated");
    if (row.basis === "measured" && row.energy_j_per_1k_tok === null)
      throw new Error(`${path}: basis is 'measured' but 'results.energy_per_token_mj' is missing`);
    row.perplexity = row.fp16_perplexity = row.delta_perplexity_pct = null;
    row.mean_kl_vs_fp16 = row.top1_agreement_vs_fp16 = null;
    if (r.object("quality")) {
      row.perplexity = r.number("quality.value");
      row.fp16_perplexity = r.number("quality.fp16_value");
      row.delta_perplexity_pct = r.number("quality.delta_vs_fp16_pct");
      row.mean_kl_vs_fp16 = r.number("quality.mean_kl_vs_fp16");
      row.top1_agreement_vs_fp16 = r.number("quality.top1_agreement_vs_fp16");
      // The ranges src/analysis/row_checks.cpp holds every imported run to.
      if (row.mean_kl_vs_fp16 !== null && !(row.mean_kl_vs_fp16 >= 0))
        throw new Error(`${path}: field 'quality.mean_kl_vs_fp16': expected a KL divergence ≥ 0 (nats), got ${row.mean_kl_vs_fp16}`);
      if (row.top1_agreement_vs_fp16 !== null && !(row.top1_agreement_vs_fp16 >= 0 && row.top1_agreement_vs_fp16 <= 1))
        throw new Error(`${path}: field 'quality.top1_agreement_vs_fp16': expected a fraction from 0 to 1, got ${row.top1_agreement_vs_fp16}`);
    }
    const sw = r.object("software");
    if (sw) {
      for (const key of ["python", "torch_cuda", "nvidia_driver", "matches_reference_pins"])
        if (key in sw && scalarText(sw[key]) !== null) row.versions[key] = scalarText(sw[key]);
      const pk = r.object("software.packages");
      for (const [k, v] of Object.entries(pk || {})) if (scalarText(v) !== null) row.versions[k] = scalarText(v);
    }
    if (build) for (const [k, v] of Object.entries(build)) if (scalarText(v) !== null) row.versions["ecocompute." + k] = scalarText(v);
    if (engine) for (const [k, v] of Object.entries(engine)) if (k !== "weight_format" && scalarText(v) !== null) row.versions["engine." + k] = scalarText(v);
    if (meter) for (const k of ["method", "source", "backend", "kind"]) if (k in meter && scalarText(meter[k]) !== null) row.versions["meter." + k] = scalarText(meter[k]);
    return row;
  };

  // Internal consistency, as the seed note checks it: total energy / tokens against J/1k tok, and
  // power / throughput against the same; and the delta against the two energies. Each finding is
  // {ok, text}; a missing field is skipped, not a failure.
  M.consistency = function (row) {
    const out = [];
    const rel = (a, b) => Math.abs(a - b) / Math.max(Math.abs(b), 1e-12);
    if (EC.isNum(row.total_energy_j) && EC.isNum(row.tokens_generated) && row.tokens_generated > 0 && EC.isNum(row.energy_j_per_1k_tok)) {
      const j1k = (row.total_energy_j / row.tokens_generated) * 1000;
      out.push({ ok: rel(j1k, row.energy_j_per_1k_tok) < 0.02,
        text: `total energy / tokens = ${EC.fmt(j1k, 1)} J/1k tok vs reported ${EC.fmt(row.energy_j_per_1k_tok, 1)}` });
    }
    if (EC.isNum(row.avg_power_w) && EC.isNum(row.throughput_tok_s) && row.throughput_tok_s > 0 && EC.isNum(row.energy_j_per_1k_tok)) {
      const j1k = (row.avg_power_w / row.throughput_tok_s) * 1000;
      out.push({ ok: rel(j1k, row.energy_j_per_1k_tok) < 0.05,
        text: `power / throughput = ${EC.fmt(j1k, 1)} J/1k tok vs reported ${EC.fmt(row.energy_j_per_1k_tok, 1)}` });
    }
    if (EC.isNum(row.energy_j_per_1k_tok) && EC.isNum(row.fp16_energy_j_per_1k_tok) && row.fp16_energy_j_per_1k_tok > 0 && EC.isNum(row.vs_fp16_energy_pct)) {
      const d = (row.energy_j_per_1k_tok / row.fp16_energy_j_per_1k_tok - 1) * 100;
      out.push({ ok: Math.abs(d - row.vs_fp16_energy_pct) < 0.5,
        text: `(quantized / FP16 − 1) = ${EC.pct(d, 2)} vs reported ${EC.pct(row.vs_fp16_energy_pct, 2)}` });
    }
    return out;
  };
})();
