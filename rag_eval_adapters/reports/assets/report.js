(function () {
"use strict";
var DATA = JSON.parse(document.getElementById("report-data").textContent);
var SVGNS = "http://www.w3.org/2000/svg";
var PALETTE = __PALETTE__;
var MARKERS = ["circle", "square", "triangle", "diamond", "down", "plus", "cross"];
var DASHES = ["", "6 3", "2 3", "9 3 2 3"];
var configs = DATA.configurations || [];
var questions = DATA.questions || [];
var types = Object.keys(DATA.query_types || {});
var main = document.getElementById("main");
var tip = null;

function el(tag, attrs, kids) {
  var node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, kids);
  return node;
}
function setAttrs(node, attrs) {
  if (!attrs) return;
  // a text from data (class "t") is a bidi isolate with its own direction, like <bdi>: an override inside it
  // (U+202E) ends with it, and a right-to-left text is laid out right to left
  if (/(^| )t( |$)/.test(attrs["class"] || "") && !attrs.dir) node.setAttribute("dir", "auto");
  Object.keys(attrs).forEach(function (k) {
    if (k === "text") node.textContent = attrs[k];
    else if (attrs[k] !== null && attrs[k] !== undefined) node.setAttribute(k, String(attrs[k]));
  });
}
function append(node, kids) {
  if (kids === undefined || kids === null) return;
  (Array.isArray(kids) ? kids : [kids]).forEach(function (kid) {
    if (kid === null || kid === undefined) return;
    node.appendChild(typeof kid === "string" ? document.createTextNode(kid) : kid);
  });
}
function sv(tag, attrs, kids) {
  var node = document.createElementNS(SVGNS, tag);
  setAttrs(node, attrs);
  append(node, kids);
  return node;
}
function txt(value) { return el("span", {"class": "t", text: value === null || value === undefined ? "" : String(value)}); }
// ids are shown with direction controls and other invisible characters made visible
function showId(value) {
  return String(value).replace(/[\u0000-\u001f\u007f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, function (c) {
    return "[U+" + ("0000" + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) + "]";
  });
}
function idText(value) { return el("span", {"class": "t id", text: showId(value)}); }
function fmt(v, digits) {
  if (v === null || v === undefined || typeof v !== "number") return "\u2013";
  return v.toFixed(digits === undefined ? 3 : digits);
}
function fmtP(p) {
  if (typeof p !== "number") return "\u2013";
  return p < 0.001 ? p.toExponential(1) : p.toPrecision(2).replace(/\.?0+$/, "") || "0";
}
function signed(v) { return typeof v === "number" ? (v >= 0 ? "+" : "") + v.toFixed(3) : "\u2013"; }
function section(id, title) {
  var s = el("section", {id: id, "aria-labelledby": id + "-h"});
  s.appendChild(el("h2", {id: id + "-h", text: title}));
  main.appendChild(s);
  return s;
}
function selectBox(id, label, options, value, onchange) {
  var sel = el("select", {id: id});
  options.forEach(function (o) {
    var opt = el("option", {value: o[0], text: o[1]});
    if (String(o[0]) === String(value)) opt.selected = true;
    sel.appendChild(opt);
  });
  sel.addEventListener("change", function () { onchange(sel.value); });
  return el("span", null, [el("label", {"for": id, text: label + " "}), sel]);
}
function style(i) {
  return {color: PALETTE[(i + Math.floor(i / PALETTE.length)) % PALETTE.length], marker: MARKERS[i % MARKERS.length],
          dash: DASHES[Math.floor(i / MARKERS.length) % DASHES.length]};
}
function marker(kind, x, y, color, r) {
  r = r || 4;
  var p;
  if (kind === "circle") return sv("circle", {cx: x, cy: y, r: r, fill: color});
  if (kind === "square") return sv("rect", {x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: color});
  if (kind === "triangle") p = [[x, y - r * 1.2], [x + r * 1.1, y + r * .9], [x - r * 1.1, y + r * .9]];
  else if (kind === "down") p = [[x, y + r * 1.2], [x + r * 1.1, y - r * .9], [x - r * 1.1, y - r * .9]];
  else if (kind === "diamond") p = [[x, y - r * 1.3], [x + r * 1.1, y], [x, y + r * 1.3], [x - r * 1.1, y]];
  if (p) return sv("polygon", {points: p.map(function (q) { return q[0].toFixed(1) + "," + q[1].toFixed(1); }).join(" "), fill: color});
  var d = kind === "plus" ? "M" + (x - r) + " " + y + "H" + (x + r) + "M" + x + " " + (y - r) + "V" + (y + r)
                          : "M" + (x - r) + " " + (y - r) + "L" + (x + r) + " " + (y + r) + "M" + (x - r) + " " + (y + r) + "L" + (x + r) + " " + (y - r);
  return sv("path", {d: d, stroke: color, "stroke-width": 2.5, fill: "none"});
}
function legendGlyph(i) {
  var s = style(i);
  var g = sv("svg", {width: 34, height: 12, "aria-hidden": "true", focusable: "false"});
  g.appendChild(sv("line", {x1: 1, y1: 6, x2: 33, y2: 6, stroke: s.color, "stroke-width": 2, "stroke-dasharray": s.dash}));
  g.appendChild(marker(s.marker, 17, 6, s.color, 4));
  return g;
}
function showTip(evt, text) {
  // the markers' <title> already names each value for assistive technology; the tip is for the eye
  if (!tip) { tip = el("div", {"class": "tip", "aria-hidden": "true"}); document.body.appendChild(tip); }
  tip.textContent = text;
  tip.style.display = "block";
  tip.style.left = (evt.clientX + 12) + "px";
  tip.style.top = (evt.clientY + 12) + "px";
}
function hideTip() { if (tip) tip.style.display = "none"; }
function hoverable(node, text) {
  node.appendChild(sv("title", {text: text}));
  node.addEventListener("mousemove", function (e) { showTip(e, text); });
  node.addEventListener("mouseleave", hideTip);
  return node;
}

// a sortable table: columns [{key, label, num, get(row) -> value, show(row) -> node|string, rowHeader}]
function sortableTable(id, caption, columns, rows, initial, limit) {
  var state = {key: initial ? initial.key : null, dir: initial ? initial.dir : 1, limit: limit || 0};
  var more = el("button", {type: "button", id: id + "-more"});
  more.addEventListener("click", function () { state.limit = 0; draw(); });
  var table = el("table", {id: id});
  table.appendChild(el("caption", {"class": "muted", text: caption}));
  var thead = el("thead"), tr = el("tr");
  var body = el("tbody");
  rebuildHead();
  thead.appendChild(tr);
  table.appendChild(thead);
  table.appendChild(body);
  var current = rows;
  function draw() {
    var col = columns.filter(function (c) { return c.key === state.key; })[0];
    var list = current.slice();
    if (col) {
      list.sort(function (a, b) {
        var x = col.get(a), y = col.get(b);
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : x > y ? 1 : 0) * state.dir;
      });
    }
    Array.prototype.forEach.call(tr.children, function (th) {
      if (th.getAttribute("data-key") === state.key) th.setAttribute("aria-sort", state.dir > 0 ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    });
    body.textContent = "";
    more.hidden = !state.limit || list.length <= state.limit;
    more.textContent = "Show all " + list.length + " rows";
    if (state.limit) list = list.slice(0, state.limit);
    list.forEach(function (row) {
      var r = el("tr");
      columns.forEach(function (c) {
        var value = c.show ? c.show(row) : c.get(row);
        var cell = el(c.rowHeader ? "th" : "td", {scope: c.rowHeader ? "row" : null, "class": c.num ? "num" : null});
        append(cell, typeof value === "string" || value instanceof Node ? value : String(value));
        r.appendChild(cell);
      });
      body.appendChild(r);
    });
  }
  table.redraw = function (newRows, newColumns) {
    if (newRows) current = newRows;
    if (newColumns) { columns = newColumns; rebuildHead(); }
    draw();
  };
  function rebuildHead() {
    tr.textContent = "";
    columns.forEach(function (c) {
      var th = el("th", {scope: "col", "class": c.num ? "num" : null, "data-key": c.key});
      var b = el("button", {type: "button", text: c.label, "aria-label": "sort by " + c.label});
      b.addEventListener("click", function () {
        state.dir = state.key === c.key ? -state.dir : (c.num ? -1 : 1);
        state.key = c.key;
        draw();
      });
      th.appendChild(b);
      tr.appendChild(th);
    });
  }
  draw();
  table.more = more;
  return table;
}

function header() {
  document.getElementById("page-title").textContent = DATA.title;
  var links = [["verdict", "Verdict"], ["configurations", "Configurations"], ["charts", "Charts"],
               ["tests", "Paired tests"], ["questions", "Questions"]];
  var nav = el("nav", {"aria-label": "sections"}), ul = el("ul");
  links.forEach(function (l) { ul.appendChild(el("li", null, el("a", {href: "#" + l[0], text: l[1]}))); });
  nav.appendChild(ul);
  main.appendChild(nav);
}
function summary() {
  var box = el("div", {id: "summary"});
  (DATA.summary || []).forEach(function (line) { box.appendChild(el("p", {"class": "summary t", text: line})); });
  main.appendChild(box);
}

function verdict() {
  var s = section("verdict", "Verdict");
  var items = DATA.verdict || [];
  if (!items.length) s.appendChild(el("p", {"class": "muted", text: "No verdict: one configuration, or no test."}));
  else {
    var ul = el("ul");
    items.forEach(function (v) { ul.appendChild(el("li", {"class": "t", text: v})); });
    s.appendChild(ul);
  }
  notices(s);
}
// one entry of left_out: {chunking (or configuration; null: every one), reason, query_ids, questions (the total)}
function leftOut(entry) {
  var ids = entry.query_ids || [], n = ids.length, one = n === 1, where = entry.chunking || entry.configuration;
  var total = typeof entry.questions === "number" ? entry.questions : n;
  var count = n + (total !== n || typeof entry.questions === "number" ? " of " + total : "") + " question" + (total === 1 ? "" : "s");
  var parts;
  if (entry.reason === "no_relevant_chunk" && where) {
    parts = [el("strong", {text: count}), (one ? " has" : " have") + " no relevant chunk in ", idText(where),
             " and " + (one ? "is" : "are") + " left out: "];
  } else if (entry.reason === "unanswerable") {
    parts = [el("strong", {text: count}), (one ? " is" : " are") + " marked unanswerable (answerable: false) and " +
             (one ? "is" : "are") + " left out of the retrieval scores: "];
  } else {
    parts = [el("strong", {text: count}), (one ? " is" : " are") + " left out", where ? " of " : "", where ? idText(where) : null,
             entry.reason ? " (" : "", entry.reason ? txt(entry.reason) : null, entry.reason ? ")" : "", ": "];
  }
  var p = el("p", {"class": "left-out"}, parts);
  ids.forEach(function (q, i) { if (i) p.appendChild(document.createTextNode(", ")); p.appendChild(questionLink(q)); });
  return p;
}
// warnings (e.g. a judge grading its own answers) and the questions left out of a chunking's scores
function notices(s) {
  var warnings = DATA.warnings || [], left = DATA.left_out || [];
  if (!warnings.length && !left.length) return;
  var box = el("div", {"class": "notices", id: "notices", role: "note"});
  warnings.forEach(function (w) { box.appendChild(el("p", {"class": "warning"}, [el("strong", {text: "Warning: "}), txt(w)])); });
  left.forEach(function (entry) { box.appendChild(leftOut(entry)); });
  s.appendChild(box);
}

var view = {type: "all", k: null};
function tableMetrics() {
  if ((DATA.families || []).length && (DATA.ks || []).length) {
    return DATA.families.map(function (f) { return f + "@" + view.k; }).concat(DATA.extra_metrics || []);
  }
  return DATA.metrics || Object.keys((configs[0] || {}).mean || {});
}
function intervalOf(config, metric) {
  var source = view.type === "all" ? config.intervals : (config.intervals_by_type || {})[view.type];
  var v = source ? source[metric] : undefined;
  return Array.isArray(v) && typeof v[0] === "number" && typeof v[1] === "number" ? v : null;
}
function meanCell(config, metric, best) {
  var v = meanOf(config, metric), iv = intervalOf(config, metric);
  var value = el("span", {"class": v !== null && v === best ? "best" : null, text: fmt(v)});
  if (!iv) return value;
  return el("span", null, [value, el("span", {"class": "ci", text: "[" + fmt(iv[0]) + ", " + fmt(iv[1]) + "]"})]);
}
function meanOf(config, metric) {
  var source = view.type === "all" ? config.mean : (config.by_type || {})[view.type];
  var v = source ? source[metric] : undefined;
  return typeof v === "number" ? v : null;
}
function configTable() {
  var s = section("configurations", "Configurations");
  var ks = DATA.ks || [];
  var head = DATA.headline || "";
  view.k = ks.length ? (head.indexOf("@") > 0 ? Number(head.split("@")[1]) : ks[0]) : null;
  if (ks.indexOf(view.k) < 0 && ks.length) view.k = ks[0];
  var controls = el("div", {"class": "controls"});
  var typeOptions = [["all", "all questions"]].concat(types.map(function (t) { return [t, showId(t) + " (" + DATA.query_types[t] + ")"]; }));
  var table;
  controls.appendChild(selectBox("type-filter", "Question type", typeOptions, "all", function (v) {
    view.type = v; table.redraw(null, columnsNow());
  }));
  if (ks.length) {
    controls.appendChild(selectBox("k-select", "Cutoff k", ks.map(function (k) { return [k, String(k)]; }), view.k, function (v) {
      view.k = Number(v); table.redraw(null, columnsNow());
    }));
  }
  s.appendChild(controls);
  var infoKeys = [];
  configs.forEach(function (c) { Object.keys(c.info || {}).forEach(function (k) { if (infoKeys.indexOf(k) < 0) infoKeys.push(k); }); });
  function columnsNow() {
    var cols = [{key: "name", label: "configuration", rowHeader: true, get: function (c) { return c.name; }, show: function (c) { return idText(c.name); }}];
    infoKeys.forEach(function (k) {
      cols.push({key: "info:" + k, label: k, get: function (c) { var v = (c.info || {})[k]; return v === null || v === undefined ? "" : String(v); },
                 show: function (c) { var v = (c.info || {})[k]; return idText(v === null || v === undefined ? "\u2013" : v); }});
    });
    tableMetrics().forEach(function (m) {
      var best = null;
      configs.forEach(function (c) { var v = meanOf(c, m); if (v !== null && (best === null || v > best)) best = v; });
      cols.push({key: "m:" + m, label: m, num: true, get: function (c) { return meanOf(c, m); },
                 show: function (c) { return meanCell(c, m, best); }});
    });
    return cols;
  }
  var initial = head ? {key: "m:" + head, dir: -1} : null;
  var withCi = configs.some(function (c) { return c.intervals && Object.keys(c.intervals).length; });
  table = sortableTable("config-table", "Mean of each metric over the questions of the chosen type; bold: the best." +
                        (withCi ? " " + (DATA.interval_note || "Under each mean: its interval [low, high].") : "") + " Click a column to sort.",
                        columnsNow(), configs, initial);
  s.appendChild(el("div", {"class": "scroll", id: "config-box"}, table));
  humanLabels(s);
}
function humanLabels(s) {
  var lines = DATA.human_labels || [];
  if (!lines.length) return;
  s.appendChild(el("h3", {id: "human-labels", text: "Means corrected with human labels"}));
  var ul = el("ul", {"class": "human-labels"});
  lines.forEach(function (line) { ul.appendChild(el("li", {"class": "t", text: line})); });
  s.appendChild(ul);
}

function chartFrame(w, h, titleText, descText, id) {
  var svg = sv("svg", {viewBox: "0 0 " + w + " " + h, width: "100%", role: "img", "aria-labelledby": id + "-t " + id + "-d", id: id});
  svg.appendChild(sv("title", {id: id + "-t", text: titleText}));
  svg.appendChild(sv("desc", {id: id + "-d", text: descText}));
  return svg;
}
function dataTable(caption, header, rows) {
  var d = el("details"), t = el("table");
  d.appendChild(el("summary", {text: "Data table: " + caption}));
  t.appendChild(el("caption", {"class": "muted", text: caption}));
  var tr = el("tr");
  header.forEach(function (h) { tr.appendChild(el("th", {scope: "col", text: h})); });
  t.appendChild(el("thead", null, tr));
  var body = el("tbody");
  rows.forEach(function (r) {
    var row = el("tr");
    r.forEach(function (v, i) { row.appendChild(i === 0 ? el("th", {scope: "row"}, idText(v)) : el("td", {"class": "num", text: v})); });
    body.appendChild(row);
  });
  t.appendChild(body);
  d.appendChild(el("div", {"class": "scroll"}, t));
  return d;
}
function legend(series, svg) {
  var ul = el("ul", {"class": "legend", "aria-label": "legend"});
  series.forEach(function (name, i) {
    var li = el("li", {tabindex: "0"}, [legendGlyph(i), " ", idText(name)]);
    function focus(on) {
      svg.querySelectorAll(".series").forEach(function (g) {
        var mine = g.getAttribute("data-series") === String(i);
        g.classList.toggle("dim", on && !mine);
        g.classList.toggle("focus", on && mine);
      });
    }
    li.addEventListener("mouseenter", function () { focus(true); });
    li.addEventListener("mouseleave", function () { focus(false); });
    li.addEventListener("focus", function () { focus(true); });
    li.addEventListener("blur", function () { focus(false); });
    ul.appendChild(li);
  });
  return ul;
}
// the axis range of the values: whole tenths (or decades) around them, so close values stay apart
function span(values) {
  values = values.filter(function (v) { return typeof v === "number"; });
  if (!values.length) return [0, 1, 5];
  var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
  var step = lo >= 0 && hi <= 1 ? 0.1 : Math.pow(10, Math.floor(Math.log(Math.max(hi - lo, 1e-9)) / Math.LN10));
  var a = Math.floor(lo / step) * step, b = Math.ceil(hi / step) * step;
  if (a > 0) a = Math.max(0, a - step);
  if (b <= a) b = a + step;
  var n = Math.round((b - a) / step);
  return [a, b, n >= 2 && n <= 10 ? n : 5];
}
function axes(svg, x0, y0, w, h, range) {
  for (var t = 0; t <= range[2]; t++) {
    var v = range[0] + (range[1] - range[0]) * t / range[2], y = y0 + h - h * t / range[2];
    svg.appendChild(sv("line", {x1: x0, x2: x0 + w, y1: y, y2: y, stroke: "#ddd"}));
    svg.appendChild(sv("text", {x: x0 - 6, y: y + 4, "text-anchor": "end", text: v.toFixed(2)}));
  }
}
function vsKChart(box) {
  var fams = DATA.families || [], ks = DATA.ks || [];
  if (!fams.length || ks.length < 2) return;
  var fig = el("figure"), holder = el("div");
  var cap = el("figcaption", {text: "Each metric against the cutoff k, one line per configuration (colour, marker and dash differ). Hover a point for its value; hover or focus a legend entry to pick out its line."});
  var current = DATA.headline ? DATA.headline.split("@")[0] : fams[0];
  if (fams.indexOf(current) < 0) current = fams[0];
  fig.appendChild(el("h3", {text: "Metrics against k"}));
  fig.appendChild(el("div", {"class": "controls"}, selectBox("family-select", "Metric", fams.map(function (f) { return [f, f + "@k"]; }), current, function (v) { current = v; draw(); })));
  fig.appendChild(holder);
  fig.appendChild(cap);
  box.appendChild(fig);
  function draw() {
    holder.textContent = "";
    var W = 640, H = 360, x0 = 48, y0 = 14, w = W - x0 - 16, h = H - y0 - 40;
    var svg = chartFrame(W, H, current + "@k by configuration", current + " at k = " + ks.join(", ") + " for " + configs.length + " configurations; the data table below lists every value.", "chart-vs-k");
    var range = span([].concat.apply([], configs.map(function (c) { return ks.map(function (k) { return c.mean[current + "@" + k]; }); })));
    axes(svg, x0, y0, w, h, range);
    var xs = ks.map(function (k, i) { return x0 + w * i / (ks.length - 1); });
    ks.forEach(function (k, i) { svg.appendChild(sv("text", {x: xs[i], y: y0 + h + 16, "text-anchor": "middle", text: String(k)})); });
    svg.appendChild(sv("text", {x: x0 + w / 2, y: H - 4, "text-anchor": "middle", text: "k"}));
    configs.forEach(function (c, i) {
      var s = style(i), g = sv("g", {"class": "series", "data-series": i});
      var pts = ks.map(function (k, j) { var v = c.mean[current + "@" + k]; return typeof v === "number" ? [xs[j], y0 + h - h * (v - range[0]) / (range[1] - range[0]), v, k] : null; });
      var d = pts.filter(Boolean).map(function (p, j) { return (j ? "L" : "M") + p[0].toFixed(1) + " " + p[1].toFixed(1); }).join("");
      g.appendChild(sv("path", {d: d, fill: "none", stroke: s.color, "stroke-width": 1.6, "stroke-dasharray": s.dash}));
      pts.forEach(function (p) {
        if (!p) return;
        g.appendChild(hoverable(marker(s.marker, p[0], p[1], s.color, 4), showId(c.name) + ": " + current + "@" + p[3] + " = " + p[2].toFixed(3)));
      });
      svg.appendChild(g);
    });
    holder.appendChild(svg);
    holder.appendChild(legend(configs.map(function (c) { return c.name; }), svg));
    holder.appendChild(dataTable(current + "@k", ["configuration"].concat(ks.map(function (k) { return "k=" + k; })),
      configs.map(function (c) { return [c.name].concat(ks.map(function (k) { return fmt(c.mean[current + "@" + k]); })); })));
  }
  draw();
}
function byTypeChart(box) {
  if (!types.length) return;
  var metrics = tableMetrics();
  var current = DATA.headline && metrics.indexOf(DATA.headline) >= 0 ? DATA.headline : metrics[0];
  var groups = ["all"].concat(types);
  var fig = el("figure"), holder = el("div");
  fig.appendChild(el("h3", {text: "By question type"}));
  fig.appendChild(el("div", {"class": "controls"}, selectBox("bytype-select", "Metric", metrics.map(function (m) { return [m, m]; }), current, function (v) { current = v; draw(); })));
  fig.appendChild(holder);
  fig.appendChild(el("figcaption", {text: "One row per configuration, one marker per question type (shape and colour); hover a marker for its value."}));
  box.appendChild(fig);
  function value(c, g) { var src = g === "all" ? c.mean : (c.by_type || {})[g]; return src && typeof src[current] === "number" ? src[current] : null; }
  function draw() {
    holder.textContent = "";
    var row = 18, x0 = 190, W = 640, w = W - x0 - 20, top = 24, H = top + row * configs.length + 30;
    var svg = chartFrame(W, H, current + " by configuration and question type", current + " for each configuration, overall and for " + types.join(", ") + " questions; the data table below lists every value.", "chart-by-type");
    var range = span([].concat.apply([], configs.map(function (c) { return groups.map(function (g) { return value(c, g); }); })));
    for (var t = 0; t <= range[2]; t++) {
      var x = x0 + w * t / range[2];
      svg.appendChild(sv("line", {x1: x, x2: x, y1: top - 6, y2: H - 26, stroke: "#ddd"}));
      svg.appendChild(sv("text", {x: x, y: H - 12, "text-anchor": "middle", text: (range[0] + (range[1] - range[0]) * t / range[2]).toFixed(2)}));
    }
    configs.forEach(function (c, i) {
      var y = top + row * i + row / 2;
      var label = showId(c.name);
      svg.appendChild(sv("text", {x: x0 - 8, y: y + 4, "text-anchor": "end", text: label.length > 30 ? label.slice(0, 29) + "\u2026" : label}));
      svg.appendChild(sv("line", {x1: x0, x2: x0 + w, y1: y, y2: y, stroke: "#f0f0f0"}));
    });
    groups.forEach(function (g, gi) {
      var s = style(gi), series = sv("g", {"class": "series", "data-series": gi});
      configs.forEach(function (c, i) {
        var v = value(c, g);
        if (v === null) return;
        series.appendChild(hoverable(marker(s.marker, x0 + w * (v - range[0]) / (range[1] - range[0]), top + row * i + row / 2, s.color, 5), showId(c.name) + ", " + showId(g) + ": " + current + " = " + v.toFixed(3)));
      });
      svg.appendChild(series);
    });
    holder.appendChild(svg);
    holder.appendChild(legend(groups, svg));
    holder.appendChild(dataTable(current + " by question type", ["configuration"].concat(groups),
      configs.map(function (c) { return [c.name].concat(groups.map(function (g) { return fmt(value(c, g)); })); })));
  }
  draw();
}
function charts() {
  var s = section("charts", "Charts");
  var box = el("div", {"class": "charts"});
  s.appendChild(box);
  vsKChart(box);
  byTypeChart(box);
  if (!box.children.length) s.appendChild(el("p", {"class": "muted", text: "No chart: one cutoff and no question types."}));
}

function tests() {
  var s = section("tests", "Paired tests");
  var rows = DATA.tests || [];
  if (!rows.length) { s.appendChild(el("p", {"class": "muted", text: "No paired test in this report."})); return; }
  var adjusted = rows.some(function (t) { return typeof t.p_adjusted === "number"; });
  var metrics = [];
  rows.forEach(function (t) { if (metrics.indexOf(t.metric) < 0) metrics.push(t.metric); });
  var shown = rows, table;
  s.appendChild(el("div", {"class": "controls"}, selectBox("test-metric", "Metric", [["", "every metric"]].concat(metrics.map(function (m) { return [m, m]; })), "", function (v) {
    shown = rows.filter(function (t) { return !v || t.metric === v; });
    table.redraw(shown);
  })));
  var pKey = adjusted ? "p_adjusted" : "p";
  var cols = [
    {key: "metric", label: "metric", get: function (t) { return t.metric; }},
    {key: "a", label: "A", get: function (t) { return t.a; }, show: function (t) { return idText(t.a); }},
    {key: "b", label: "B", get: function (t) { return t.b; }, show: function (t) { return idText(t.b); }},
    {key: "difference", label: "B \u2212 A", num: true, get: function (t) { return t.difference; }, show: function (t) { return signed(t.difference); }},
    {key: "ci", label: "95% CI", num: true, get: function (t) { return t.ci_low; }, show: function (t) { return "[" + signed(t.ci_low) + ", " + signed(t.ci_high) + "]"; }},
    {key: "p", label: "p", num: true, get: function (t) { return t.p; }, show: function (t) { return el("span", {"class": t.p < 0.05 ? "sig" : null, text: fmtP(t.p)}); }}
  ];
  if (adjusted) cols.push({key: "p_adjusted", label: "adjusted p", num: true, get: function (t) { return t.p_adjusted; }, show: function (t) { return el("span", {"class": t.p_adjusted < 0.05 ? "sig" : null, text: fmtP(t.p_adjusted)}); }});
  cols.push({key: "n", label: "questions", num: true, get: function (t) { return t.n; }});
  table = sortableTable("tests-table", "B \u2212 A over the questions both scored; bold p: below 0.05" + (adjusted ? " (adjusted p: corrected for the number of tests)" : "") + ".", cols, shown, {key: pKey, dir: 1}, 25);
  s.appendChild(el("div", {"class": "scroll"}, table));
  s.appendChild(table.more);
}

// questions: worst first by the headline metric, drill-down on demand
var qm = DATA.query_metrics || [];
var headIndex = qm.indexOf(DATA.headline);
if (headIndex < 0) headIndex = 0;
function perQuery(ci, qi) { var t = DATA.per_query; return t && t[ci] ? t[ci][qi] : null; }
function qValue(ci, qi) { var r = perQuery(ci, qi); return r && typeof r[headIndex] === "number" ? r[headIndex] : null; }
function qSummary(qi, only) {
  var vals = [], lo = null, hi = null, worst = null;
  configs.forEach(function (c, ci) {
    if (only !== "" && String(ci) !== only) return;
    var v = qValue(ci, qi);
    if (v === null) return;
    vals.push(v);
    if (lo === null || v < lo) { lo = v; worst = ci; }
    if (hi === null || v > hi) hi = v;
  });
  var mean = vals.length ? vals.reduce(function (a, b) { return a + b; }, 0) / vals.length : null;
  return {mean: mean, lo: lo, hi: hi, worst: worst};
}
var drill = null;
// the anchor of each question: its id when that is a plain, unique id the page does not use, else question-N
var PAGE_IDS = ["main", "page-title", "report-data", "summary", "notices", "human-labels", "config-box", "verdict",
                "configurations", "charts", "tests", "questions", "drilldown", "type-filter", "k-select",
                "family-select", "bytype-select", "test-metric", "config-table", "tests-table", "questions-table"];
var anchors = (function () {
  var seen = {}, out = [];
  questions.forEach(function (q, qi) {
    var id = String(q.id);
    var plain = /^[A-Za-z][A-Za-z0-9_.:-]*$/.test(id) && !seen[id] && PAGE_IDS.indexOf(id) < 0 &&
                !/(-h|-more)$|^(q-|drill-|chart-|question-)/.test(id);
    out.push(plain ? id : "question-" + (qi + 1));
    seen[out[qi]] = true;
  });
  return out;
})();
function questionIndex(id) {
  for (var i = 0; i < questions.length; i++) if (String(questions[i].id) === String(id)) return i;
  return -1;
}
function questionLink(id) {
  var qi = questionIndex(id);
  if (qi < 0) return idText(id);
  return el("a", {href: "#" + anchors[qi], "class": "qref"}, idText(id));
}
var showQuestion = null;  // set by questionList: opens a question (index) from its anchor
function followHash() {
  var id = decodeURIComponent((location.hash || "").slice(1));
  var qi = anchors.indexOf(id);
  if (qi >= 0 && showQuestion) showQuestion(qi);
}
function questionList() {
  var s = section("questions", "Questions");
  if (!questions.length) { s.appendChild(el("p", {"class": "muted", text: "No per-question data in this report."})); return; }
  var metricName = qm.length ? qm[headIndex] : "score";
  var state = {type: "all", config: "", search: "", limit: 50};
  var controls = el("div", {"class": "controls"});
  controls.appendChild(selectBox("q-type", "Question type", [["all", "all"]].concat(types.map(function (t) { return [t, showId(t)]; })), "all", function (v) { state.type = v; state.limit = 50; draw(); }));
  controls.appendChild(selectBox("q-config", "Worst first by", [["", "mean over configurations"]].concat(configs.map(function (c, i) { return [String(i), showId(c.name)]; })), "", function (v) { state.config = v; state.limit = 50; draw(); }));
  var search = el("input", {id: "q-search", type: "search", placeholder: "words of the question or its id"});
  search.addEventListener("input", function () { state.search = search.value.toLowerCase(); state.limit = 50; draw(); });
  controls.appendChild(el("span", null, [el("label", {"for": "q-search", text: "Find "}), search]));
  s.appendChild(controls);
  var count = el("p", {"class": "muted", "aria-live": "polite"});
  s.appendChild(count);
  var table = el("table", {id: "questions-table"});
  table.appendChild(el("caption", {"class": "muted", text: "Questions ordered worst first by " + metricName + "; open one to see every configuration's chunks and answers."}));
  var hr = el("tr");
  ["question id", "type", "question", metricName + " (mean)", "lowest", "highest"].forEach(function (h, i) { hr.appendChild(el("th", {scope: "col", "class": i >= 3 ? "num" : null, text: h})); });
  table.appendChild(el("thead", null, hr));
  var body = el("tbody");
  table.appendChild(body);
  s.appendChild(el("div", {"class": "scroll"}, table));
  var more = el("button", {type: "button", id: "q-more", text: "Show 50 more"});
  more.addEventListener("click", function () { state.limit += 50; draw(); });
  s.appendChild(more);
  var order = questions.map(function (q, qi) { return qi; });
  function draw() {
    var summaries = {};
    var list = order.filter(function (qi) {
      var q = questions[qi];
      if (state.type !== "all" && q.type !== state.type) return false;
      if (state.search && (String(q.text || "") + " " + String(q.id)).toLowerCase().indexOf(state.search) < 0) return false;
      return true;
    });
    list.forEach(function (qi) { summaries[qi] = qSummary(qi, state.config); });
    list.sort(function (a, b) {
      var x = summaries[a].mean, y = summaries[b].mean;
      if (x === null) return 1;
      if (y === null) return -1;
      return x - y || a - b;
    });
    count.textContent = list.length + " questions; showing " + Math.min(list.length, state.limit) + ".";
    body.textContent = "";
    list.slice(0, state.limit).forEach(function (qi) {
      var q = questions[qi], sm = summaries[qi];
      var open = el("button", {type: "button", "class": "qbtn", "data-question": qi, text: showId(q.id)});
      open.addEventListener("click", function () { openQuestion(qi, sm.worst); });
      // the link's "#" is drawn by the style sheet, so the cell's text stays the question's id
      var link = el("a", {href: "#" + anchors[qi], "class": "qlink", "aria-label": "link to question " + showId(q.id),
                          title: "link to this question"});
      body.appendChild(el("tr", {id: anchors[qi]}, [el("th", {scope: "row"}, [open, link]), el("td", null, q.type ? idText(q.type) : ""), el("td", null, txt(q.text)),
        el("td", {"class": "num", text: fmt(sm.mean)}), el("td", {"class": "num", text: fmt(sm.lo)}), el("td", {"class": "num", text: fmt(sm.hi)})]));
    });
    more.hidden = list.length <= state.limit;
  }
  draw();
  drill = section("drilldown", "Question");
  drill.hidden = true;
  showQuestion = function (qi) {
    if (!document.getElementById(anchors[qi])) {  // filtered out or past the rows shown: show every row
      state.type = "all"; state.search = ""; search.value = ""; state.limit = questions.length;
      document.getElementById("q-type").value = "all";
      draw();
    }
    openQuestion(qi, qSummary(qi, state.config).worst);
  };
}

function highlighted(text, ranges) {
  // ranges: [{start, end, cls}] in the text's characters; overlapping ranges give both classes
  var cuts = [0, text.length];
  ranges.forEach(function (r) { cuts.push(Math.max(0, Math.min(text.length, r.start)), Math.max(0, Math.min(text.length, r.end))); });
  cuts = cuts.filter(function (v, i, a) { return a.indexOf(v) === i; }).sort(function (a, b) { return a - b; });
  var p = el("p", {"class": "chunk-text t"});
  for (var i = 0; i + 1 < cuts.length; i++) {
    var a = cuts[i], b = cuts[i + 1], piece = text.slice(a, b), cls = [];
    if (!piece) continue;
    ranges.forEach(function (r) { if (r.start <= a && r.end >= b && cls.indexOf(r.cls) < 0) cls.push(r.cls); });
    p.appendChild(cls.length ? el("mark", {"class": cls.join(" "), text: piece}) : document.createTextNode(piece));
  }
  return p;
}
function chunkCard(entry, rank, claims) {
  var ids = (DATA.chunks || {}).ids || [], texts = (DATA.chunks || {}).texts || [];
  var id = ids[entry[0]], text = texts[entry[0]] || "", grade = entry[2], spans = entry[3] || [];
  var ranges = [];
  for (var i = 0; i + 1 < spans.length; i += 2) ranges.push({start: spans[i], end: spans[i + 1], cls: "evidence"});
  claims.forEach(function (c) { if (c.chunk_id === id && typeof c.start === "number") ranges.push({start: c.start, end: c.end, cls: "claim"}); });
  var li = el("li", {"class": "chunk" + (grade > 0 ? " relevant" : ""), "data-chunk-id": id, "data-grade": grade});
  var box = el("details");
  if (grade > 0 || rank <= 3 || claims.some(function (c) { return c.chunk_id === id; })) box.open = true;
  var head = el("summary", {"class": "chunk-head"}, ["rank " + rank + " \u00b7 ", idText(id), " \u00b7 score " + (typeof entry[1] === "number" ? entry[1].toPrecision(4) : "\u2013") + " \u00b7 ",
    el("span", {"class": "grade " + (grade > 0 ? "gpos" : "g0"), text: "grade " + grade, title: grade > 0 ? "relevant: grade = percent of the evidence this chunk covers (or 1 for a matched text)" : "not relevant"})]);
  box.appendChild(head);
  if (text) box.appendChild(highlighted(text, ranges));
  li.appendChild(box);
  return li;
}
function answerBlock(answer) {
  var box = el("div", {"class": "answer"});
  box.appendChild(el("h4", {text: "Answer"}));
  if (answer.error) box.appendChild(el("p", {"class": "verdict-other t", text: "error: " + answer.error}));
  if (answer.text !== undefined && answer.text !== null) box.appendChild(el("p", {"class": "t answer-text", text: answer.text}));
  var scores = answer.scores || {};
  if (Object.keys(scores).length) {
    var dl = el("dl", {"class": "kv"});
    Object.keys(scores).forEach(function (k) { dl.appendChild(el("dt", {text: k})); dl.appendChild(el("dd", {text: fmt(scores[k])})); });
    box.appendChild(dl);
  }
  var claims = answer.claims || [];
  if (claims.length) {
    box.appendChild(el("h4", {text: "Claims"}));
    var ol = el("ol", {"class": "claims"});
    claims.forEach(function (c) {
      var verdict = String(c.verdict === undefined ? "" : c.verdict);
      var li = el("li", {"class": "claim-item"}, [txt(c.text), " \u2014 ", el("span", {"class": /^support/i.test(verdict) ? "verdict-supported" : "verdict-other", text: verdict})]);
      if (c.quote) li.appendChild(el("blockquote", null, [el("mark", {"class": "claim t", text: c.quote}), el("span", {"class": "muted"}, [" (", idText(c.chunk_id === undefined ? "" : c.chunk_id), ")"])]));
      ol.appendChild(li);
    });
    box.appendChild(ol);
  }
  return box;
}
function configColumn(ci, qi) {
  var col = el("div", {"class": "config-column", "data-config": ci});
  var c = configs[ci];
  col.appendChild(el("h3", null, idText(c.name)));
  var r = perQuery(ci, qi);
  if (r) {
    var dl = el("dl", {"class": "kv"});
    qm.forEach(function (m, i) { dl.appendChild(el("dt", {text: m})); dl.appendChild(el("dd", {text: fmt(r[i])})); });
    col.appendChild(dl);
  } else {
    col.appendChild(el("p", {"class": "muted", text: "Not scored in this configuration (no judged chunk, or an error)."}));
  }
  var answer = DATA.answers && DATA.answers[ci] ? DATA.answers[ci][qi] : null;
  var claims = answer && answer.claims ? answer.claims : [];
  var ranking = DATA.retrieved && DATA.retrieved[ci] ? DATA.retrieved[ci][qi] : null;
  if (answer) col.appendChild(answerBlock(answer));
  if (ranking) {
    col.appendChild(el("h4", {text: "Top " + ranking.length + " chunks (relevant ones and the first three open)"}));
    var ol = el("ol", {"class": "chunks"});
    ranking.forEach(function (entry, i) { ol.appendChild(chunkCard(entry, i + 1, claims)); });
    col.appendChild(ol);
  }
  return col;
}
var chosen = null;
function openQuestion(qi, worst) {
  var q = questions[qi];
  drill.hidden = false;
  drill.textContent = "";
  var h = el("h2", {id: "drilldown-h", tabindex: "-1"}, ["Question ", idText(q.id)]);
  drill.appendChild(h);
  var dl = el("dl", {"class": "kv"});
  [["question", q.text], ["type", q.type], ["reference answer", q.reference]].forEach(function (kv) {
    if (kv[1] === undefined || kv[1] === null) return;
    dl.appendChild(el("dt", {text: kv[0]}));
    dl.appendChild(el("dd", {"class": "t q-" + kv[0].split(" ")[0], text: String(kv[1])}));
  });
  drill.appendChild(dl);
  if ((q.evidence || []).length) {
    drill.appendChild(el("h3", {text: "Evidence"}));
    var ul = el("ul", {"class": "evidence-list"});
    q.evidence.forEach(function (e) { ul.appendChild(el("li", null, el("mark", {"class": "evidence t", text: e}))); });
    drill.appendChild(ul);
  }
  var best = 0;
  configs.forEach(function (c, ci) { var v = c.mean[DATA.headline]; if (typeof v === "number" && v > (configs[best].mean[DATA.headline] || 0)) best = ci; });
  var pick = chosen || [best, worst === null || worst === undefined || worst === best ? (configs.length > 1 ? (best + 1) % configs.length : best) : worst];
  var options = configs.map(function (c, i) { return [String(i), showId(c.name)]; });
  var controls = el("div", {"class": "controls"});
  var pair = el("div", {"class": "pair"});
  function draw() {
    pair.textContent = "";
    pair.appendChild(configColumn(pick[0], qi));
    if (configs.length > 1) pair.appendChild(configColumn(pick[1], qi));
  }
  // once a reader picks the two configurations, every question opens with that pair
  controls.appendChild(selectBox("drill-a", "Left", options, pick[0], function (v) { pick[0] = Number(v); chosen = pick; draw(); }));
  if (configs.length > 1) controls.appendChild(selectBox("drill-b", "Right", options, pick[1], function (v) { pick[1] = Number(v); chosen = pick; draw(); }));
  drill.appendChild(controls);
  drill.appendChild(pair);
  var back = el("a", {href: "#questions", text: "Back to the questions"});
  var permalink = el("a", {href: "#" + anchors[qi], "class": "qref permalink", text: "link to this question"});
  drill.appendChild(el("p", null, [back, " \u00b7 ", permalink]));
  draw();
  h.focus();
  h.scrollIntoView();
}

header();
verdict();
summary();
configTable();
charts();
tests();
questionList();
window.addEventListener("hashchange", followHash);
followHash();
if (window.performance && performance.mark) performance.mark("report-ready");
document.documentElement.setAttribute("data-ready", "1");
})();
