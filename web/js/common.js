// Shared helpers for every page: number formatting, DOM building, sortable/filterable tables,
// the colour of each GPU architecture (Okabe–Ito, colour-blind safe) and the site data.
"use strict";
(function () {
  const EC = (window.EC = window.EC || {});
  EC.data = window.EC_DATA || null;

  // Okabe–Ito, with the yellow left out (too light on white).
  EC.palette = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000"];
  const archOrder = ["ada", "ampere", "blackwell", "turing", "hopper"];
  const assigned = {};
  EC.archColor = function (arch) {
    if (assigned[arch]) return assigned[arch];
    const i = archOrder.indexOf(arch);
    const used = Object.keys(assigned).length;
    assigned[arch] = EC.palette[i >= 0 ? i : (archOrder.length + used) % EC.palette.length];
    return assigned[arch];
  };

  const isNum = (v) => typeof v === "number" && isFinite(v);
  EC.isNum = isNum;
  EC.fmt = function (v, digits) {
    if (!isNum(v)) return "—";
    return v.toFixed(digits === undefined ? 2 : digits);
  };
  EC.signed = function (v, digits) {
    if (!isNum(v)) return "—";
    const s = v.toFixed(digits === undefined ? 1 : digits);
    return v > 0 ? "+" + s : s;
  };
  EC.pct = (v, digits) => (isNum(v) ? EC.signed(v, digits) + " %" : "—");
  // A fraction 0..1 as a percentage with one decimal: 0.9356 → "93.6 %".
  EC.pct1 = (v) => (isNum(v) ? (100 * v).toFixed(1) + " %" : "—");
  // Like C's %g with 6 significant digits for ordinary magnitudes: 7 → "7", 0.5 → "0.5".
  EC.g = (v) => (isNum(v) ? String(Number(v.toPrecision(6))) : "—");
  // The C++ tables round half away from zero (std::round); Math.round does not for negatives.
  EC.r2 = (v) => (isNum(v) ? (Math.sign(v) * Math.round(Math.abs(v) * 100)) / 100 : null);

  // el("p", {class: "x"}, "text", child, ...): attributes starting with "on" become listeners.
  EC.el = function (tag, attrs) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (let i = 2; i < arguments.length; i++) {
      const c = arguments[i];
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) c.forEach((x) => x && node.append(x));
      else node.append(c);
    }
    return node;
  };
  EC.$ = (sel) => document.querySelector(sel);

  EC.chip = (label, value, kind) =>
    EC.el("li", { class: "chip" + (kind ? " " + kind : "") }, label ? EC.el("span", {}, label + ": ") : null,
      EC.el("b", {}, String(value)));

  EC.notice = function (kind, title, items) {
    return EC.el("div", { class: "notice" + (kind === "error" ? " error" : ""), role: kind === "error" ? "alert" : null },
      EC.el("strong", {}, title),
      items && items.length ? EC.el("ul", {}, items.map((t) => EC.el("li", {}, t))) : null);
  };

  // A table with sortable columns. columns: [{key, label, num, fmt(row) → text, value(row) → sort
  // value, title}]. Returns {node, render(rows)} so callers can filter and re-render.
  EC.table = function (columns, rows, options) {
    options = options || {};
    const table = EC.el("table", { class: "data" + (options.class ? " " + options.class : ""), id: options.id || null });
    if (options.caption) table.append(EC.el("caption", {}, options.caption));
    const thead = EC.el("thead");
    const tbody = EC.el("tbody");
    table.append(thead, tbody);
    let sortKey = null;
    let sortDir = 1;
    let current = rows.slice();
    const valueOf = (c, r) => (c.value ? c.value(r) : r[c.key]);
    const headRow = EC.el("tr");
    columns.forEach((c) => {
      const th = EC.el("th", { scope: "col", class: c.num ? "num" : null, title: c.title || null, "data-key": c.key });
      if (options.sortable === false) th.textContent = c.label;
      else {
        th.append(EC.el("button", { type: "button", onclick: () => sortBy(c, th) }, c.label));
        th.setAttribute("aria-sort", "none");
      }
      headRow.append(th);
    });
    thead.append(headRow);
    function sortBy(c, th) {
      sortDir = sortKey === c.key ? -sortDir : 1;
      sortKey = c.key;
      headRow.querySelectorAll("th").forEach((h) => h.setAttribute("aria-sort", "none"));
      th.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
      current.sort((a, b) => {
        const x = valueOf(c, a);
        const y = valueOf(c, b);
        if (x === y) return 0;
        if (x === null || x === undefined || (typeof x === "number" && !isFinite(x))) return 1;
        if (y === null || y === undefined || (typeof y === "number" && !isFinite(y))) return -1;
        return (x < y ? -1 : 1) * sortDir;
      });
      fill();
    }
    function fill() {
      tbody.textContent = "";
      if (!current.length) {
        tbody.append(EC.el("tr", {}, EC.el("td", { colspan: columns.length, class: "muted" }, options.empty || "nothing to show")));
        return;
      }
      current.forEach((r) => {
        const tr = EC.el("tr");
        columns.forEach((c) => {
          const text = c.fmt ? c.fmt(r) : r[c.key] === null || r[c.key] === undefined ? "—" : String(r[c.key]);
          // Long text is cut by the stylesheet in some columns; the full text stays a tooltip.
          tr.append(EC.el("td", { class: c.num ? "num" : null, "data-key": c.key, title: text.length > 28 ? text : null }, text));
        });
        tbody.append(tr);
      });
    }
    fill();
    const wrap = EC.el("div", { class: "table-wrap" }, table);
    return {
      node: wrap,
      table: table,
      render(newRows) {
        current = newRows.slice();
        fill();
      },
    };
  };

  // "Data behind this chart": a collapsed table under every chart.
  EC.dataBehind = function (title, columns, rows) {
    return EC.el("details", { class: "data-behind" }, EC.el("summary", {}, title || "Data behind this chart"),
      EC.table(columns, rows).node);
  };

  // The site's own warnings (skipped files, curves that could not be fitted) on every page.
  document.addEventListener("DOMContentLoaded", () => {
    const box = EC.$("#site-warnings");
    if (!box) return;
    if (!EC.data) {
      box.append(EC.notice("error", "data/site-data.js is missing: this page was not generated by `ecocompute site`, or the data folder was not copied with it."));
      return;
    }
    const w = (EC.data.warnings || []).concat((EC.data.problems || []).map((p) => "skipped: " + p));
    if (w.length) box.append(EC.notice("warn", "While building this site:", w.slice(0, 20)));
  });
})();
