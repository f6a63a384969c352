// Hand-written SVG charts: log-scaled model size on x, ΔE% on y; curves (dashed where
// extrapolated), 95 % bands, points (filled n ≥ 2 with ±SD bars, hollow n = 1), a zero line,
// a legend that toggles series, tooltips on hover and keyboard focus, and a table of the data.
"use strict";
(function () {
  const EC = window.EC;
  const NS = "http://www.w3.org/2000/svg";
  const svgEl = (tag, attrs) => {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) n.setAttribute(k, v);
    return n;
  };
  let chartCount = 0;

  function niceStep(range, count) {
    const raw = range / count;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const f = raw / mag;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
  }

  function logTicks(lo, hi) {
    const out = [];
    for (let e = Math.floor(Math.log10(lo)) - 1; e <= Math.ceil(Math.log10(hi)); e++) {
      for (const m of [1, 2, 5]) {
        const v = m * Math.pow(10, e);
        if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v);
      }
    }
    return out;
  }

  function markerPath(shape, x, y, r) {
    if (shape === "square") return `M${x - r},${y - r}h${2 * r}v${2 * r}h${-2 * r}Z`;
    if (shape === "diamond") return `M${x},${y - r * 1.3}L${x + r * 1.3},${y}L${x},${y + r * 1.3}L${x - r * 1.3},${y}Z`;
    if (shape === "star") {
      let d = "";
      for (let i = 0; i < 10; i++) {
        const a = (Math.PI / 5) * i - Math.PI / 2;
        const rr = i % 2 ? r * 0.9 : r * 2.1;
        d += (i ? "L" : "M") + (x + rr * Math.cos(a)).toFixed(2) + "," + (y + rr * Math.sin(a)).toFixed(2);
      }
      return d + "Z";
    }
    return `M${x - r},${y}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
  }

  // spec: {title, xLabel, yLabel, xDomain?, series: [{name, color, curve: [{x, y, extrapolated}],
  // band: [{x, lo, hi}], points: [{x, y, sd, n, hollow, shape, tip}]}], legendNote, table: {columns, rows}}
  EC.chart = function (spec) {
    const id = "chart-" + ++chartCount;
    const W = 760, H = 430, M = { l: 72, r: 18, t: 14, b: 58 };
    const pw = W - M.l - M.r, ph = H - M.t - M.b;
    const xs = [], ys = [];
    spec.series.forEach((s) => {
      (s.points || []).forEach((p) => {
        xs.push(p.x);
        ys.push(p.y);
        if (EC.isNum(p.sd)) ys.push(p.y - p.sd, p.y + p.sd);
      });
      (s.curve || []).forEach((c) => { xs.push(c.x); ys.push(c.y); });
    });
    const dom = spec.xDomain || [Math.min.apply(null, xs) / 1.3, Math.max.apply(null, xs) * 1.3];
    if (!xs.length) { dom[0] = dom[0] || 0.5; dom[1] = dom[1] || 10; }
    ys.push(0);
    let yLo = Math.min.apply(null, ys), yHi = Math.max.apply(null, ys);
    const pad = Math.max((yHi - yLo) * 0.08, 2);
    yLo -= pad; yHi += pad;
    const step = niceStep(yHi - yLo, 7);
    yLo = Math.floor(yLo / step) * step;
    yHi = Math.ceil(yHi / step) * step;
    const lx0 = Math.log10(dom[0]), lx1 = Math.log10(dom[1]);
    const X = (v) => M.l + ((Math.log10(v) - lx0) / (lx1 - lx0)) * pw;
    const Y = (v) => M.t + (1 - (v - yLo) / (yHi - yLo)) * ph;

    const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": id + "-title", id: id });
    const title = svgEl("title", { id: id + "-title" });
    title.textContent = spec.title;
    svg.append(title);
    const defs = svgEl("defs");
    const clip = svgEl("clipPath", { id: id + "-clip" });
    clip.append(svgEl("rect", { x: M.l, y: M.t, width: pw, height: ph }));
    defs.append(clip);
    svg.append(defs);

    // grid and axes
    const grid = svgEl("g", { class: "grid" });
    const axes = svgEl("g", { class: "axis" });
    for (let v = yLo; v <= yHi + step / 2; v += step) {
      const y = Y(v);
      grid.append(svgEl("line", { x1: M.l, x2: M.l + pw, y1: y, y2: y }));
      axes.append(svgEl("line", { x1: M.l - 5, x2: M.l, y1: y, y2: y }));
      const t = svgEl("text", { x: M.l - 8, y: y + 4, "text-anchor": "end" });
      t.textContent = (Math.abs(v) < step / 1e6 ? 0 : +v.toFixed(6)) + (v > 0 ? "" : "");
      axes.append(t);
    }
    logTicks(dom[0], dom[1]).forEach((v) => {
      const x = X(v);
      grid.append(svgEl("line", { x1: x, x2: x, y1: M.t, y2: M.t + ph }));
      axes.append(svgEl("line", { x1: x, x2: x, y1: M.t + ph, y2: M.t + ph + 5 }));
      const t = svgEl("text", { x: x, y: M.t + ph + 19, "text-anchor": "middle" });
      t.textContent = String(+v.toPrecision(3));
      axes.append(t);
    });
    axes.append(svgEl("path", { d: `M${M.l},${M.t}V${M.t + ph}H${M.l + pw}`, fill: "none" }));
    const xl = svgEl("text", { x: M.l + pw / 2, y: H - 12, "text-anchor": "middle", class: "axis-label" });
    xl.textContent = spec.xLabel || "Model size (billions of parameters, log scale)";
    const yl = svgEl("text", { transform: `translate(16,${M.t + ph / 2}) rotate(-90)`, "text-anchor": "middle", class: "axis-label" });
    yl.textContent = spec.yLabel || "ΔE vs FP16 (%)";
    axes.append(xl, yl);
    svg.append(grid, axes);
    if (yLo < 0 && yHi > 0) svg.append(svgEl("line", { class: "zero", x1: M.l, x2: M.l + pw, y1: Y(0), y2: Y(0) }));

    const figure = EC.el("figure", { class: "chart" });
    const tip = EC.el("div", { class: "tooltip", hidden: true, role: "status" });
    const showTip = (text, evt, node) => {
      tip.textContent = text;
      tip.hidden = false;
      const box = figure.getBoundingClientRect();
      const r = node.getBoundingClientRect();
      const left = (evt && evt.clientX ? evt.clientX : r.left + r.width / 2) - box.left + 12;
      const top = (evt && evt.clientY ? evt.clientY : r.top) - box.top - 10;
      tip.style.left = Math.min(left, box.width - 220) + "px";
      tip.style.top = Math.max(top - tip.offsetHeight, 0) + "px";
    };
    const hideTip = () => { tip.hidden = true; };

    const groups = spec.series.map((s, i) => {
      const g = svgEl("g", { class: "series", "data-series": s.name, "clip-path": `url(#${id}-clip)` });
      if (s.band && s.band.length > 1) {
        const up = s.band.map((b) => `${X(b.x).toFixed(1)},${Y(b.hi).toFixed(1)}`);
        const down = s.band.slice().reverse().map((b) => `${X(b.x).toFixed(1)},${Y(b.lo).toFixed(1)}`);
        g.append(svgEl("polygon", { points: up.concat(down).join(" "), fill: s.color, "fill-opacity": 0.13, stroke: "none" }));
      }
      if (s.curve && s.curve.length > 1) {
        // Consecutive runs of the same kind (measured range / extrapolated) become one path each.
        let run = [s.curve[0]];
        const flush = () => {
          if (run.length < 2) return;
          const d = run.map((c, k) => (k ? "L" : "M") + X(c.x).toFixed(1) + "," + Y(c.y).toFixed(1)).join("");
          g.append(svgEl("path", { d: d, fill: "none", stroke: s.color, "stroke-width": 2.2,
            "stroke-dasharray": run[0].extrapolated ? "6 4" : null }));
        };
        for (let k = 1; k < s.curve.length; k++) {
          const c = s.curve[k];
          if (!!c.extrapolated !== !!run[run.length - 1].extrapolated) {
            run.push(c);
            flush();
            run = [c];
          } else run.push(c);
        }
        flush();
      }
      (s.points || []).forEach((p) => {
        const x = X(p.x), y = Y(p.y);
        const pg = svgEl("g", {});
        if (EC.isNum(p.sd) && p.sd > 0) {
          const y1 = Y(p.y - p.sd), y2 = Y(p.y + p.sd);
          pg.append(svgEl("path", { d: `M${x},${y1}V${y2}M${x - 4},${y1}h8M${x - 4},${y2}h8`, stroke: s.color, "stroke-width": 1.5, fill: "none" }));
        }
        const text = p.tip || `${s.name}\n${EC.g(p.x)} B: ${EC.pct(p.y)}`;
        const m = svgEl("path", {
          d: markerPath(p.shape || "circle", x, y, p.shape === "star" ? 4 : 5),
          fill: p.hollow ? "#fff" : s.color, stroke: p.shape === "star" ? "#000" : s.color, "stroke-width": p.shape === "star" ? 1.2 : 2,
          class: "pt", tabindex: 0, role: "img", "aria-label": text.replace(/\n/g, "; "),
        });
        m.addEventListener("mouseenter", (e) => showTip(text, e, m));
        m.addEventListener("mousemove", (e) => showTip(text, e, m));
        m.addEventListener("mouseleave", hideTip);
        m.addEventListener("focus", () => showTip(text, null, m));
        m.addEventListener("blur", hideTip);
        pg.append(m);
        g.append(pg);
      });
      svg.append(g);
      return g;
    });

    figure.append(EC.el("figcaption", {}, spec.title));
    const legend = EC.el("div", { class: "legend", role: "group", "aria-label": "Series (click to hide or show)" });
    spec.series.forEach((s, i) => {
      const key = EC.el("span", { class: "key", "aria-hidden": "true" });
      key.style.background = `linear-gradient(${s.color}, ${s.color}) center/100% 3px no-repeat, ${s.color}22`;
      legend.append(EC.el("button", {
        type: "button", "aria-pressed": "true",
        onclick: (e) => {
          const b = e.currentTarget;
          const on = b.getAttribute("aria-pressed") !== "true";
          b.setAttribute("aria-pressed", on ? "true" : "false");
          groups[i].style.display = on ? "" : "none";
        },
      }, key, s.name));
    });
    figure.append(legend);
    if (spec.legendNote) figure.append(EC.el("p", { class: "legend-note" }, spec.legendNote));
    figure.append(svg, tip);
    if (spec.table) figure.append(EC.dataBehind(spec.table.title, spec.table.columns, spec.table.rows));
    return figure;
  };

  // Samples a function of N on a log grid over [lo, hi].
  EC.logGrid = function (lo, hi, count) {
    const out = [];
    const a = Math.log10(lo), b = Math.log10(hi);
    for (let i = 0; i <= count; i++) out.push(Math.pow(10, a + ((b - a) * i) / count));
    return out;
  };
})();
