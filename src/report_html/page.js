(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('wgprof-data').textContent);
  var PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7',
    '#9c755f', '#17becf', '#2b5d8c', '#c4571a', '#a83246', '#3d9489', '#2f7d32', '#b8902a', '#7b4f9d',
    '#d9628f', '#6b4c3b', '#5f6b7a'];
  var SCOPE_PALETTE = ['#a9bde0', '#b5dba5', '#ecd3a5', '#a4d6cb', '#f2bba6', '#e0b8d8', '#d6d19d',
    '#c3cad4'];
  var CPU_COLORS = {encode: '#8797d8', submit: '#e8a33d', wait: '#c6cbd4'};
  var DOT = ' \u00b7 ', BY = '\u00d7';
  var FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';

  function hex2(v) {
    var s = Math.round(v * 255).toString(16);
    return s.length < 2 ? '0' + s : s;
  }
  function hslHex(h, s, l) {
    var a = s * Math.min(l, 1 - l);
    function f(n) {
      var k = (n + h / 30) % 12;
      return l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    }
    return '#' + hex2(f(0)) + hex2(f(8)) + hex2(f(4));
  }
  /* The same colour for a kernel in the chart, the timeline and the table. */
  function kernelColor(k) {
    return k < PALETTE.length ? PALETTE[k] : hslHex((k * 137.508) % 360, 0.5, 0.5);
  }
  function darkText(hex) {
    var v = parseInt(hex.slice(1), 16);
    return 0.299 * (v >> 16) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255) > 150;
  }
  function us(ns) {
    return ns == null ? '-' : (ns / 1e3).toFixed(3);
  }
  function at(ns) {
    return Math.abs(ns) >= 1e6 ? (ns / 1e6).toFixed(3) + ' ms' : (ns / 1e3).toFixed(3) + ' us';
  }
  function shorten(s, n) {
    return s.length > n ? s.slice(0, n - 1) + '\u2026' : s;
  }
  /* Where an element lies on the page, for checks of a screenshot. */
  function box(el) {
    var r = el.getBoundingClientRect();
    return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height].map(Math.round).join(',');
  }

  function addSwatches() {
    var rows = document.querySelectorAll('#summary-table tbody tr[data-k]');
    for (var i = 0; i < rows.length; i++) {
      var k = +rows[i].getAttribute('data-k');
      if (!data.kernels[k] || !data.kernels[k].count) {
        continue;
      }
      var sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.background = kernelColor(k);
      rows[i].cells[0].insertBefore(sw, rows[i].cells[0].firstChild);
    }
  }

  function drawChart() {
    var svg = document.getElementById('kernel-chart');
    if (!svg) {
      return 0;
    }
    var ns = svg.namespaceURI;
    function node(tag, attrs, text) {
      var e = document.createElementNS(ns, tag);
      for (var a in attrs) {
        e.setAttribute(a, attrs[a]);
      }
      if (text != null) {
        e.textContent = text;
      }
      return e;
    }
    while (svg.firstChild) {
      svg.removeChild(svg.firstChild);
    }
    var rows = [];
    data.kernels.forEach(function (k, i) {
      if (k.count > 0 && k.total_ns != null) {
        rows.push({k: k, i: i});
      }
    });
    rows.sort(function (a, b) { return b.k.total_ns - a.k.total_ns || a.i - b.i; });
    var width = Math.max(640, svg.parentNode.clientWidth);
    var rowH = 24, pad = 4, nameW = 200, labelW = 380;
    var barMax = Math.max(80, width - nameW - labelW - 16);
    var height = pad * 2 + Math.max(1, rows.length) * rowH;
    svg.setAttribute('width', width);
    svg.setAttribute('height', height);
    if (!rows.length) {
      svg.appendChild(node('text', {x: 16, y: height / 2}, 'no valid dispatches'));
      return 0;
    }
    var top = rows[0].k.total_ns > 0 ? rows[0].k.total_ns : 1;
    rows.forEach(function (r, n) {
      var k = r.k, y = pad + n * rowH, len = Math.max(2, barMax * k.total_ns / top);
      var g = node('g', {});
      var name = node('text', {x: nameW - 10, y: y + rowH / 2, 'text-anchor': 'end'}, shorten(k.name, 28));
      name.appendChild(node('title', {}, k.name));
      g.appendChild(name);
      var bar = node('rect', {'class': 'bar', x: nameW, y: y + 4, width: len.toFixed(1), height: rowH - 8,
        rx: 2, fill: kernelColor(r.i)});
      var what = k.name + ': ' + us(k.total_ns) + ' us in ' + k.count + ' dispatches';
      bar.appendChild(node('title', {}, what));
      g.appendChild(bar);
      g.appendChild(node('text', {'class': 'value', x: (nameW + len + 8).toFixed(1), y: y + rowH / 2},
        us(k.total_ns) + ' us total' + DOT + 'median ' + us(k.median_ns) + DOT + 'p95 ' + us(k.p95_ns) +
        ' us' + DOT + BY + k.count));
      svg.appendChild(g);
    });
    return rows.length;
  }

  function setupTimeline() {
    var canvas = document.getElementById('timeline');
    if (!canvas) {
      return 0;
    }
    var ctx = canvas.getContext('2d');
    var tip = document.getElementById('tooltip');
    var rangeLabel = document.getElementById('range');
    var cpu = data.timebase === 'cpu';
    var lanes = [], scopeLanes = [], lo = Infinity, hi = -Infinity;
    function lane(name, height) {
      var l = {name: name, h: height, items: [], y: 0, maxDur: 0};
      lanes.push(l);
      return l;
    }
    function add(l, s, e, color, what, ref) {
      if (s == null || e == null || !(e >= s)) {
        return;
      }
      l.items.push({s: s, e: e, c: color, what: what, ref: ref});
      lo = Math.min(lo, s);
      hi = Math.max(hi, e);
    }
    var legend = document.getElementById('legend');
    if (cpu) {
      Object.keys(CPU_COLORS).forEach(function (name) {
        var item = document.createElement('span'), sw = document.createElement('span');
        item.className = 'legend';
        sw.className = 'swatch';
        sw.style.background = CPU_COLORS[name];
        item.appendChild(sw);
        item.appendChild(document.createTextNode('CPU ' + name));
        legend.appendChild(item);
      });
      var cpuLane = lane('CPU', 24);
      data.batches.forEach(function (b) {
        add(cpuLane, b[1], b[2], CPU_COLORS.encode, 'encode', b);
        add(cpuLane, b[2], b[3], CPU_COLORS.submit, 'submit', b);
        if (b[5]) {
          add(cpuLane, b[3], b[4], CPU_COLORS.wait, 'wait', b);
        }
      });
    }
    var gpuLane = lane('GPU', 36);
    data.dispatches.forEach(function (d) { add(gpuLane, d[3], d[4], kernelColor(d[0]), 'dispatch', d); });
    var scopeColors = {}, scopeNames = 0;
    data.scopes.forEach(function (s) {
      while (scopeLanes.length <= s[1]) {
        scopeLanes.push(lane('scope depth ' + scopeLanes.length, 24));
      }
      if (!Object.prototype.hasOwnProperty.call(scopeColors, s[0])) {
        scopeColors[s[0]] = SCOPE_PALETTE[scopeNames++ % SCOPE_PALETTE.length];
      }
      add(scopeLanes[s[1]], s[3], s[4], scopeColors[s[0]], 'scope', s);
    });
    lanes.forEach(function (l) {
      l.items.sort(function (a, b) { return a.s - b.s; });
      l.items.forEach(function (it) { l.maxDur = Math.max(l.maxDur, it.e - it.s); });
    });
    if (!(hi > lo)) {
      lo = isFinite(lo) ? lo : 0;
      hi = lo + 1000;
    }
    var MIN_SPAN = 50, GUTTER = 112, RIGHT = 10, AXIS = 26, GAP = 4;
    var full0 = lo, full1 = hi, v0 = lo, v1 = hi, W = 0, H = 0, dpr = 1, hover = null, drag = null;
    var widths = {};

    function layout() {
      var y = AXIS + GAP;
      lanes.forEach(function (l) {
        l.y = y;
        y += l.h + GAP;
      });
      H = y;
      W = Math.max(400, canvas.parentNode.clientWidth);
      dpr = window.devicePixelRatio || 1;
      canvas.style.height = H + 'px';
      canvas.width = Math.round(W * dpr);
      canvas.height = Math.round(H * dpr);
      widths = {};
    }
    function plotW() {
      return W - GUTTER - RIGHT - 6;
    }
    function px(t) {
      return GUTTER + 6 + (t - v0) / (v1 - v0) * plotW();
    }
    function time(x) {
      return v0 + (x - GUTTER - 6) / plotW() * (v1 - v0);
    }
    function niceStep(span, count) {
      var raw = span / Math.max(1, count), p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
      return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
    }
    function tickLabel(t, step) {
      if (step >= 1e5) {
        return (t / 1e6).toFixed(Math.max(0, -Math.floor(Math.log10(step / 1e6) + 1e-9))) + ' ms';
      }
      return (t / 1e3).toFixed(Math.max(0, -Math.floor(Math.log10(step / 1e3) + 1e-9))) + ' us';
    }
    function lowerBound(items, t) {
      var a = 0, b = items.length;
      while (a < b) {
        var m = (a + b) >> 1;
        if (items[m].s < t) {
          a = m + 1;
        } else {
          b = m;
        }
      }
      return a;
    }
    function fit(text, room) {
      var w = widths[text];
      if (w == null) {
        w = widths[text] = ctx.measureText(text).width;
      }
      if (w <= room) {
        return text;
      }
      var n = Math.floor(text.length * room / w) - 1;
      return n >= 3 ? text.slice(0, n) + '\u2026' : '';
    }
    function itemName(it) {
      if (it.what === 'dispatch') {
        return data.kernels[it.ref[0]] ? data.kernels[it.ref[0]].name : '';
      }
      return it.what === 'scope' ? it.ref[0] : it.what;
    }

    function draw() {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, W, H);
      ctx.font = FONT;
      ctx.textBaseline = 'middle';
      lanes.forEach(function (l, i) {
        ctx.fillStyle = i % 2 ? '#ffffff' : '#f4f6f9';
        ctx.fillRect(0, l.y - GAP / 2, W, l.h + GAP);
        ctx.fillStyle = '#1d2330';
        ctx.fillText(l.name, 10, l.y + l.h / 2);
      });
      var step = niceStep(v1 - v0, plotW() / 130);
      ctx.strokeStyle = '#dde1e8';
      ctx.lineWidth = 1;
      for (var n = Math.ceil(v0 / step); n * step <= v1; n++) {
        var t = Math.abs(n) < 1e-9 ? 0 : n * step, x = Math.round(px(t)) + 0.5, label = tickLabel(t, step);
        ctx.beginPath();
        ctx.moveTo(x, AXIS - 6);
        ctx.lineTo(x, H);
        ctx.stroke();
        if (x + 4 + ctx.measureText(label).width < W) {
          ctx.fillStyle = '#5d6575';
          ctx.fillText(label, x + 4, AXIS / 2);
        }
      }
      ctx.strokeStyle = '#b9c0cc';
      ctx.beginPath();
      ctx.moveTo(0, AXIS + 0.5);
      ctx.lineTo(W, AXIS + 0.5);
      ctx.moveTo(GUTTER + 0.5, AXIS);
      ctx.lineTo(GUTTER + 0.5, H);
      ctx.stroke();
      ctx.save();
      ctx.beginPath();
      ctx.rect(GUTTER + 1, AXIS + 1, W - GUTTER - 1, H - AXIS - 1);
      ctx.clip();
      lanes.forEach(function (l) {
        var items = l.items, lastX = -1, lastC = '';
        for (var i = lowerBound(items, v0 - l.maxDur); i < items.length && items[i].s <= v1; i++) {
          var it = items[i];
          if (it.e < v0) {
            continue;
          }
          var x0 = px(it.s), w = px(it.e) - x0;
          /* Zoomed out, many items share a pixel column: one rectangle stands for them. */
          if (w < 1) {
            var column = Math.floor(x0);
            if (column === lastX && it.c === lastC) {
              continue;
            }
            lastX = column;
            lastC = it.c;
            w = 1;
          } else {
            lastX = -1;
          }
          ctx.fillStyle = it.c;
          ctx.fillRect(x0, l.y, w, l.h);
          if (w > 28) {
            var left = Math.max(x0, GUTTER + 1) + 4, room = Math.min(x0 + w, W) - left - 4;
            var text = room > 12 ? fit(itemName(it), room) : '';
            if (text) {
              ctx.fillStyle = darkText(it.c) ? '#1d2330' : '#ffffff';
              ctx.fillText(text, left, l.y + l.h / 2);
            }
          }
        }
      });
      if (hover) {
        var hx = px(hover.item.s), hw = Math.max(1, px(hover.item.e) - hx);
        ctx.strokeStyle = '#1d2330';
        ctx.lineWidth = 2;
        ctx.strokeRect(hx - 1, hover.lane.y - 1, hw + 2, hover.lane.h + 2);
      }
      ctx.restore();
      if (rangeLabel) {
        var ms = Math.max(Math.abs(v0), Math.abs(v1)) >= 1e6, unit = ms ? 1e6 : 1e3;
        rangeLabel.textContent = 'showing ' + (v0 / unit).toFixed(3) + ' \u2013 ' + (v1 / unit).toFixed(3) +
          (ms ? ' ms' : ' us') + ' (' + at(v1 - v0) + ' wide)';
      }
    }

    function setView(a, b, anchor) {
      var full = full1 - full0, span = Math.min(Math.max(b - a, MIN_SPAN), Math.max(full, MIN_SPAN));
      if (span !== b - a) {
        var r = anchor == null ? 0.5 : (anchor - a) / (b - a);
        a = (anchor == null ? (a + b) / 2 : anchor) - r * span;
      }
      a = Math.max(full0, Math.min(a, full0 + Math.max(full, MIN_SPAN) - span));
      v0 = a;
      v1 = a + span;
      draw();
    }
    function reset() {
      hover = null;
      setView(full0, full1);
    }
    function hit(mx, my) {
      if (mx <= GUTTER) {
        return null;
      }
      for (var li = 0; li < lanes.length; li++) {
        var l = lanes[li];
        if (my < l.y || my > l.y + l.h) {
          continue;
        }
        var t = time(mx), tol = 3 * (v1 - v0) / plotW(), items = l.items, best = null, bestD = Infinity;
        var i = lowerBound(items, t - l.maxDur - tol);
        for (; i < items.length && items[i].s <= t + tol; i++) {
          var it = items[i], d = t < it.s ? it.s - t : t > it.e ? t - it.e : 0;
          if (d <= tol && (d < bestD || (d === bestD && it.e - it.s < best.e - best.s))) {
            best = it;
            bestD = d;
          }
        }
        return best ? {lane: l, item: best} : null;
      }
      return null;
    }
    function tipLines(it) {
      var r = it.ref;
      if (it.what === 'dispatch') {
        var k = data.kernels[r[0]];
        return [k ? k.name : '?',
          'iteration ' + r[1] + DOT + 'dispatch id ' + r[5] + DOT + 'record ' + r[2],
          'duration ' + us(r[4] - r[3]) + ' us' + DOT + 'starts at ' + at(r[3]),
          'workgroups ' + r[6] + BY + r[7] + BY + r[8] + DOT + 'global size ' + r[9] + BY + r[10] + BY +
          r[11]];
      }
      if (it.what === 'scope') {
        return [r[0], 'scope at depth ' + r[1] + DOT + 'iteration ' + r[2],
          'span ' + us(r[4] - r[3]) + ' us' + DOT + 'starts at ' + at(r[3]),
          'dispatches ' + us(r[6]) + ' us in ' + r[5] + ' record' + (r[5] === 1 ? '' : 's')];
      }
      return ['CPU ' + it.what, 'iteration ' + r[0],
        'duration ' + us(it.e - it.s) + ' us' + DOT + 'starts at ' + at(it.s)];
    }
    function showTip(h, mx, my) {
      tip.textContent = '';
      tipLines(h.item).forEach(function (line, i) {
        var el = document.createElement(i ? 'div' : 'b');
        el.textContent = line;
        tip.appendChild(el);
        if (!i) {
          tip.appendChild(document.createElement('br'));
        }
      });
      tip.style.display = 'block';
      var tw = tip.offsetWidth, th = tip.offsetHeight;
      var left = mx + 14 + tw > W ? mx - tw - 14 : mx + 14;
      tip.style.left = Math.max(0, left) + 'px';
      tip.style.top = Math.max(0, Math.min(my + 14, H - th)) + 'px';
    }
    function hideTip() {
      tip.style.display = 'none';
    }
    function pos(e) {
      var r = canvas.getBoundingClientRect();
      return {x: e.clientX - r.left, y: e.clientY - r.top};
    }

    canvas.addEventListener('mousedown', function (e) {
      if (e.button === 0) {
        drag = {x: e.clientX, v0: v0, v1: v1};
        canvas.classList.add('dragging');
        hideTip();
        e.preventDefault();
      }
    });
    window.addEventListener('mousemove', function (e) {
      if (drag) {
        var dt = (e.clientX - drag.x) / plotW() * (drag.v1 - drag.v0);
        setView(drag.v0 - dt, drag.v1 - dt);
      }
    });
    window.addEventListener('mouseup', function () {
      if (drag) {
        drag = null;
        canvas.classList.remove('dragging');
      }
    });
    canvas.addEventListener('mousemove', function (e) {
      if (drag) {
        return;
      }
      var p = pos(e), h = hit(p.x, p.y);
      if ((h && h.item) !== (hover && hover.item)) {
        hover = h;
        draw();
      }
      if (h) {
        showTip(h, p.x, p.y);
      } else {
        hideTip();
      }
    });
    canvas.addEventListener('mouseleave', function () {
      hideTip();
      if (hover) {
        hover = null;
        draw();
      }
    });
    canvas.addEventListener('wheel', function (e) {
      e.preventDefault();
      hideTip();
      var scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        var dt = e.deltaX * scale / plotW() * (v1 - v0);
        setView(v0 + dt, v1 + dt);
        return;
      }
      var p = pos(e), t = p.x > GUTTER ? time(p.x) : v0, f = Math.exp(e.deltaY * scale * 0.002);
      setView(t - (t - v0) * f, t + (v1 - t) * f, t);
    }, {passive: false});
    canvas.addEventListener('dblclick', reset);
    document.getElementById('timeline-reset').addEventListener('click', reset);
    window.addEventListener('resize', function () {
      layout();
      draw();
    });
    layout();
    draw();
    return data.dispatches.length;
  }

  var dispatches = 0, kernels = 0;
  if (data.profiling) {
    addSwatches();
    kernels = drawChart();
    dispatches = setupTimeline();
    window.addEventListener('resize', drawChart);
    var canvas = document.getElementById('timeline'), chart = document.getElementById('kernel-chart');
    if (canvas) {
      document.body.dataset.timelineBox = box(canvas);
    }
    if (chart) {
      document.body.dataset.chartBox = box(chart);
    }
  }
  document.body.dataset.rendered = 'ok';
  console.log('wgprof report rendered: ' + dispatches + ' dispatches, ' + kernels + ' kernels');
})();
