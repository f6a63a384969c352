// What the pages know of the fitted curves: the classes in curves.json, the estimates the C++
// estimator precomputed (site data `estimates`), and the report grader, which is
// `ecocompute check-regression`'s own C++ (reading, validating, grading, the curve's ΔE(N)) compiled
// to WebAssembly (src/wasm/report_grader.cpp). No estimate or grading math lives in JavaScript.
"use strict";
(function () {
  const EC = window.EC;
  const M = (EC.model = {});

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

  // The estimates come precomputed by the C++ estimator (site data `estimates`, one row per size as
  // `ecocompute estimate` prints it): the pages look rows up and never compute an estimate.
  M.estimateRows = (arch, precision) => (EC.data && EC.data.estimates && EC.data.estimates[arch + "/" + precision]) || [];
  M.estimateAt = (arch, precision, N) => M.estimateRows(arch, precision).find((r) => Math.abs(r.params_b - N) < 1e-6) || null;

  // The grader loads on first use (1.4 MB, only the replications page needs it); every call
  // after the first gets the same module.
  let loading = null;
  M.grader = function () {
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        const script = document.createElement("script");
        script.src = "assets/js/report-grader.js";
        script.onload = () => window.ecReportGrader().then(resolve, reject);
        script.onerror = () => reject(new Error("assets/js/report-grader.js could not be loaded"));
        document.head.append(script);
      });
    }
    return loading;
  };

  const curvesText = () => (EC.data && EC.data.curves ? JSON.stringify(EC.data.curves) : "");

  // "content:" + 16 hex digits of the SHA-256 of the grader's identity text: the run id `ingest`
  // gives a report without one (content_run_id). null where the browser has no crypto.subtle.
  async function contentRunId(identity) {
    if (!(window.crypto && crypto.subtle)) return null;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(identity)));
    return "content:" + [...digest].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, 16);
  }

  // One report through the grader: {read_error} when `ecocompute ingest` would refuse it, else
  // {row, schema_version} and {check} (the row `check-regression --format json` prints) or
  // {grade_error}; no check when the site has no curves.
  M.examine = async function (text, name, k) {
    const g = await M.grader();
    let r = JSON.parse(g.examine(text, name, "", curvesText(), k));
    if (r.identity) {
      const id = await contentRunId(r.identity);
      if (id) r = JSON.parse(g.examine(text, name, id, curvesText(), k));
    }
    return r;
  };

  // The fitted ΔE (%) of a class at each size in Ns, evaluated by the C++ curve model.
  M.curveValues = async function (arch, precision, Ns) {
    const g = await M.grader();
    const out = JSON.parse(g.curveValues(curvesText(), arch, precision, JSON.stringify(Ns)));
    if (out.error) throw new Error(out.error);
    return out;
  };
})();
