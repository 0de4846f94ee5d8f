(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('wgprof-data').textContent);
  /* Kernel colours are all chromatic; greys are kept for the CPU's spans, so that no kernel can
   * be taken for one. */
  var PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7',
    '#9c755f', '#17becf', '#2b5d8c', '#c4571a', '#a83246', '#3d9489', '#2f7d32', '#b8902a', '#7b4f9d',
    '#d9628f', '#6b4c3b', '#6f8f1f'];
  var SCOPE_PALETTE = ['#a9bde0', '#b5dba5', '#ecd3a5', '#a4d6cb', '#f2bba6', '#e0b8d8', '#d6d19d',
    '#c9b6e8'];
  /* Pure greys (equal channels), unlike every other colour of the page; the wait is hatched. */
  var CPU_STYLES = {
    encode: {fill: '#a3a3a3'},
    submit: {fill: '#555555'},
    wait: {fill: '#e6e6e6', hatch: '#bdbdbd'}
  };
  /* What both pages share (common/page/base.js, written before this script). */
  var element = wgprofPage.element, us = wgprofPage.us, DOT = wgprofPage.DOT;
  var BY = '\u00d7', DASH = '\u2013', ELLIPSIS = '\u2026';
  var FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';
  var laneBoxes = null; /* setupTimeline's: where its CPU and GPU lanes lie on the page */

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
  /* The same colour for a kernel in the chart, the timeline and the tables. */
  function kernelColor(k) {
    return k < PALETTE.length ? PALETTE[k] : hslHex((k * 137.508) % 360, 0.5, 0.5);
  }
  function darkText(hex) {
    var v = parseInt(hex.slice(1), 16);
    return 0.299 * (v >> 16) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255) > 150;
  }
  function at(ns) {
    return Math.abs(ns) >= 1e6 ? (ns / 1e6).toFixed(3) + ' ms' : (ns / 1e3).toFixed(3) + ' us';
  }
  /* Where an element lies on the page, for checks of a screenshot. */
  function rect(el, dx, dy, w, h) {
    var r = el.getBoundingClientRect();
    return [r.left + window.scrollX + dx, r.top + window.scrollY + dy, w == null ? r.width : w,
      h == null ? r.height : h].map(Math.round).join(',');
  }
  function swatch(background) {
    var sw = element('span', 'swatch');
    sw.style.background = background;
    return sw;
  }
  function cpuSwatch(style) {
    return swatch(style.hatch ? 'repeating-linear-gradient(135deg, ' + style.hatch + ' 0 2px, ' + style.fill +
      ' 2px 5px)' : style.fill);
  }

  function addSwatches() {
    var rows = document.querySelectorAll('#summary-table tbody tr[data-k], #efficiency-table tbody tr[data-k]');
    for (var i = 0; i < rows.length; i++) {
      var k = +rows[i].getAttribute('data-k');
      if (!data.kernels[k] || !data.kernels[k].count) {
        continue;
      }
      rows[i].cells[0].insertBefore(swatch(kernelColor(k)), rows[i].cells[0].firstChild);
    }
  }

  /* ---- time per kernel ------------------------------------------------------------------- */

  /* Bars of the kernels' total time, each with its name on the left and its figures on the
   * right. Every label is measured, so the columns are as wide as their longest text: a name
   * too long for its column is shortened with its whole text in a tooltip, and where the window
   * is too narrow for the figures beside the bars, they go under them. */
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
    var width = Math.max(200, Math.floor(svg.parentNode.clientWidth));
    svg.setAttribute('width', width);
    svg.setAttribute('height', 40);
    var probe = node('text', {x: 0, y: -50});
    svg.appendChild(probe);
    function measure(text) {
      probe.textContent = text;
      return probe.getComputedTextLength();
    }
    /* The longest start of `text` that fits in `room` px, with an ellipsis when cut. */
    function fitText(text, room) {
      if (measure(text) <= room) {
        return text;
      }
      var lo = 0, hi = text.length;
      while (hi - lo > 1) {
        var mid = (lo + hi) >> 1;
        if (measure(text.slice(0, mid) + ELLIPSIS) <= room) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      return lo ? text.slice(0, lo) + ELLIPSIS : '';
    }
    function labels(k) {
      return [us(k.total_ns) + ' us total' + DOT + 'median ' + us(k.median_ns) + DOT + 'p95 ' + us(k.p95_ns) +
        ' us' + DOT + BY + k.count, us(k.total_ns) + ' us total' + DOT + 'median ' + us(k.median_ns) + ' us',
      us(k.total_ns) + ' us'];
    }
    var PAD = 12, GAP = 8, pad = 4;
    if (!rows.length) {
      svg.setAttribute('height', 32);
      probe.textContent = 'no valid dispatches';
      probe.setAttribute('x', PAD);
      probe.setAttribute('y', 16);
      return 0;
    }
    var longestName = 0, longestLabel = 0;
    rows.forEach(function (r) {
      longestName = Math.max(longestName, measure(r.k.name));
      longestLabel = Math.max(longestLabel, measure(labels(r.k)[0]));
    });
    var nameW = Math.ceil(Math.min(longestName, Math.max(80, 0.3 * width)));
    var barX = PAD + nameW + GAP;
    var barMax = width - barX - GAP - Math.ceil(longestLabel) - PAD;
    var under = barMax < Math.max(120, 0.25 * width);
    if (under) {
      barMax = width - barX - PAD;
    }
    var rowH = under ? 40 : 24, height = pad * 2 + rows.length * rowH;
    svg.setAttribute('height', height);
    var top = rows[0].k.total_ns > 0 ? rows[0].k.total_ns : 1;
    rows.forEach(function (r, n) {
      var k = r.k, y = pad + n * rowH, len = Math.max(2, barMax * k.total_ns / top);
      var barY = y + 4, barH = under ? 14 : rowH - 8;
      var g = node('g', {});
      var name = node('text', {x: barX - GAP, y: barY + barH / 2, 'text-anchor': 'end'}, fitText(k.name, nameW));
      name.appendChild(node('title', {}, k.name));
      g.appendChild(name);
      var bar = node('rect', {'class': 'bar', x: barX, y: barY, width: len.toFixed(1), height: barH, rx: 2,
        fill: kernelColor(r.i)});
      bar.appendChild(node('title', {}, k.name + ': ' + us(k.total_ns) + ' us in ' + k.count + ' dispatches'));
      g.appendChild(bar);
      var all = labels(k), text = all[0];
      if (under) {
        var room = width - barX - PAD;
        text = fitText(all.filter(function (t) { return measure(t) <= room; })[0] || all[all.length - 1], room);
      }
      var value = node('text', {'class': 'value', x: under ? barX : (barX + len + GAP).toFixed(1),
        y: under ? y + rowH - 10 : barY + barH / 2}, text);
      value.appendChild(node('title', {}, all[0]));
      g.appendChild(value);
      svg.appendChild(g);
    });
    svg.removeChild(probe);
    return rows.length;
  }

  /* ---- timeline -------------------------------------------------------------------------- */

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
    /* `fill` is a colour or a pattern; `base` the colour that decides the text's. */
    function add(l, s, e, fill, base, what, ref) {
      if (s == null || e == null || !(e >= s)) {
        return;
      }
      l.items.push({s: s, e: e, c: fill, dark: darkText(base), what: what, ref: ref});
      lo = Math.min(lo, s);
      hi = Math.max(hi, e);
    }
    function pattern(style) {
      if (!style.hatch) {
        return style.fill;
      }
      var tile = document.createElement('canvas');
      tile.width = tile.height = 8;
      var g = tile.getContext('2d');
      g.fillStyle = style.fill;
      g.fillRect(0, 0, 8, 8);
      g.strokeStyle = style.hatch;
      g.lineWidth = 2;
      g.beginPath();
      [[-2, 10, 10, -2], [-2, 2, 2, -2], [6, 10, 10, 6]].forEach(function (s) {
        g.moveTo(s[0], s[1]);
        g.lineTo(s[2], s[3]);
      });
      g.stroke();
      return ctx.createPattern(tile, 'repeat');
    }
    var legend = document.getElementById('legend');
    var cpuLane = null;
    if (cpu) {
      var fills = {};
      Object.keys(CPU_STYLES).forEach(function (name) {
        var item = element('span', 'legend');
        item.appendChild(cpuSwatch(CPU_STYLES[name]));
        item.appendChild(document.createTextNode('CPU ' + name));
        legend.appendChild(item);
        fills[name] = pattern(CPU_STYLES[name]);
      });
      cpuLane = lane('CPU', 24);
      data.batches.forEach(function (b) {
        add(cpuLane, b[1], b[2], fills.encode, CPU_STYLES.encode.fill, 'encode', b);
        add(cpuLane, b[2], b[3], fills.submit, CPU_STYLES.submit.fill, 'submit', b);
        if (b[5]) {
          add(cpuLane, b[3], b[4], fills.wait, CPU_STYLES.wait.fill, 'wait', b);
        }
      });
    }
    var gpuLane = lane('GPU', 36);
    data.dispatches.forEach(function (d) {
      var c = kernelColor(d[0]);
      add(gpuLane, d[3], d[4], c, c, 'dispatch', d);
    });
    var scopeColors = {}, scopeNames = 0;
    data.scopes.forEach(function (s) {
      while (scopeLanes.length <= s[1]) {
        scopeLanes.push(lane('scope depth ' + scopeLanes.length, 24));
      }
      if (!Object.prototype.hasOwnProperty.call(scopeColors, s[0])) {
        scopeColors[s[0]] = SCOPE_PALETTE[scopeNames++ % SCOPE_PALETTE.length];
      }
      add(scopeLanes[s[1]], s[3], s[4], scopeColors[s[0]], scopeColors[s[0]], 'scope', s);
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
    /* The plotted part of the CPU and GPU lanes, for checks of a screenshot. */
    laneBoxes = function () {
      return [cpuLane, gpuLane].filter(Boolean).map(function (l) {
        return l.name + ':' + rect(canvas, GUTTER + 2, l.y + 1, W - GUTTER - 4, l.h - 2);
      }).join(';');
    };
    function plotW() {
      return W - GUTTER - RIGHT - 6;
    }
    function px(t) {
      return GUTTER + 6 + (t - v0) / (v1 - v0) * plotW();
    }
    function snap(x) {
      return Math.round(x * dpr) / dpr;
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
      return n >= 3 ? text.slice(0, n) + ELLIPSIS : '';
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
        ctx.fillText(fit(l.name, GUTTER - 14), 10, l.y + l.h / 2);
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
        var items = l.items, lastX = -1, lastC = null, narrow = [];
        for (var i = lowerBound(items, v0 - l.maxDur); i < items.length && items[i].s <= v1; i++) {
          var it = items[i];
          if (it.e < v0) {
            continue;
          }
          /* Edges on the device's pixel grid: a span 1.5 px wide drawn from x = 100.7 would
           * cover no pixel whole, and every pixel it touched would show a blend of it and its
           * neighbour, a colour of neither. */
          var x0 = snap(px(it.s)), w = snap(px(it.e)) - x0;
          /* Zoomed out, many items share a pixel column: one rectangle, on the pixel grid so that
           * it keeps its colour, stands for them, drawn after the wide ones (a submit beside its
           * wait) so that none covers it. */
          if (w < 1) {
            var column = Math.floor(x0);
            if (column !== lastX || it.c !== lastC) {
              narrow.push(column, it.c);
            }
            lastX = column;
            lastC = it.c;
            continue;
          }
          lastX = -1;
          ctx.fillStyle = it.c;
          ctx.fillRect(x0, l.y, w, l.h);
          if (w > 28) {
            var left = Math.max(x0, GUTTER + 1) + 4, room = Math.min(x0 + w, W) - left - 4;
            var text = room > 12 ? fit(itemName(it), room) : '';
            if (text) {
              ctx.fillStyle = it.dark ? '#1d2330' : '#ffffff';
              ctx.fillText(text, left, l.y + l.h / 2);
            }
          }
        }
        for (var n = 0; n < narrow.length; n += 2) {
          ctx.fillStyle = narrow[n + 1];
          ctx.fillRect(narrow[n], l.y, 1, l.h);
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
        rangeLabel.textContent = 'showing ' + (v0 / unit).toFixed(3) + ' ' + DASH + ' ' + (v1 / unit).toFixed(3) +
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
          'workgroups ' + (r[6] ? r[6] + BY + r[7] + BY + r[8] : '?') + DOT + 'global size ' +
          (r[9] ? r[9] + BY + r[10] + BY + r[11] : '?')];
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
        tip.appendChild(element(i ? 'div' : 'b', null, line));
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

  /* ---- every dispatch -------------------------------------------------------------------- */

  /* The table of every dispatch (data.rows, see data_rows in report_html.c), one page of rows in
   * the document at a time, so that a million rows stay as quick as a hundred. The page, its
   * size and a kernel to list alone can also be given in the address:
   * #dispatch-page=N&dispatch-rows=M&dispatch-kernel=NAME. */
  function setupDispatchTable() {
    var table = document.getElementById('dispatch-table'), controls = document.getElementById('dispatch-controls');
    if (!table || !controls) {
      return 0;
    }
    var body = table.tBodies[0], rows = data.rows, SIZES = [100, 500, 1000, 5000];
    var size = 500, page = 0, kernel = -1, matches = null, paths = [];
    function scopePath(node) {
      if (node < 0 || node >= data.scope_nodes.length) {
        return '';
      }
      if (paths[node] == null) {
        var n = data.scope_nodes[node];
        paths[node] = n[1] >= 0 ? scopePath(n[1]) + '/' + n[0] : n[0];
      }
      return paths[node];
    }
    function count() {
      return matches ? matches.length : rows.length;
    }
    function pages() {
      return Math.max(1, Math.ceil(count() / size));
    }
    function cell(tr, text, className, title) {
      var td = element('td', className, text);
      if (title) {
        td.title = title;
      }
      tr.appendChild(td);
      return td;
    }
    function dims(a, b, c) {
      return a + BY + b + BY + c;
    }
    function product(a, b) {
      var p = a * b;
      return p <= Number.MAX_SAFE_INTEGER ? String(p) : (BigInt(a) * BigInt(b)).toString();
    }
    function row(index) {
      var r = rows[index], tr = element('tr'), k = data.kernels[r[0]], name = k ? k.name : '?';
      cell(tr, String(index));
      cell(tr, String(r[1]));
      cell(tr, String(r[2]));
      var kc = cell(tr, name, 'name', name);
      kc.insertBefore(swatch(kernelColor(r[0])), kc.firstChild);
      var path = scopePath(r[3]);
      cell(tr, path, 'name', path || null);
      cell(tr, r[4] ? dims(r[4], r[5], r[6]) : '?');
      /* A workgroup size of 0 is one nobody could tell (wgprof record, a WGSL expression). */
      cell(tr, r[7] ? dims(r[7], r[8], r[9]) : '?');
      cell(tr, r[4] && r[7] ? dims(product(r[4], r[7]), product(r[5], r[8]), product(r[6], r[9])) : '?');
      if (typeof r[10] === 'string') {
        cell(tr, 'invalid: ' + r[10], 'none').colSpan = 3;
      } else {
        cell(tr, us(r[10]));
        cell(tr, us(r[11]));
        cell(tr, us(r[12]));
      }
      return tr;
    }
    function render() {
      page = Math.max(0, Math.min(page, pages() - 1));
      var first = page * size, last = Math.min(count(), first + size), fragment = document.createDocumentFragment();
      for (var i = first; i < last; i++) {
        fragment.appendChild(row(matches ? matches[i] : i));
      }
      body.textContent = '';
      body.appendChild(fragment);
      pageInput.value = page + 1;
      pageInput.max = pages();
      ofPages.textContent = 'of ' + pages();
      status.textContent = count() ? 'rows ' + (first + 1) + DASH + last + ' of ' + count() +
        (matches ? ' (of ' + rows.length + ')' : '') : 'no rows';
      buttons.forEach(function (b) {
        b.el.disabled = b.to() === page;
      });
      table.dataset.page = page + 1;
      table.dataset.pageSize = size;
    }
    function setKernel(k) {
      kernel = k;
      matches = null;
      if (k >= 0) {
        var found = [];
        for (var i = 0; i < rows.length; i++) {
          if (rows[i][0] === k) {
            found.push(i);
          }
        }
        matches = found;
      }
    }
    function labelled(text, control) {
      var label = element('label', null, text + ' ');
      label.appendChild(control);
      controls.appendChild(label);
      return control;
    }
    var kernelSelect = labelled('kernel', element('select'));
    kernelSelect.appendChild(new Option('all', '-1'));
    data.kernels.forEach(function (k, i) {
      kernelSelect.appendChild(new Option(k.name, String(i)));
    });
    var sizeSelect = labelled('rows per page', element('select'));
    var buttons = [
      {text: '\u00ab first', to: function () { return 0; }},
      {text: '\u2039 previous', to: function () { return Math.max(0, page - 1); }},
      {text: 'next \u203a', to: function () { return Math.min(pages() - 1, page + 1); }},
      {text: 'last \u00bb', to: function () { return pages() - 1; }}
    ];
    var pager = element('span', 'pager'), pageInput = element('input'), ofPages = element('span');
    var status = element('span', 'status');
    pageInput.type = 'number';
    pageInput.min = 1;
    pageInput.setAttribute('aria-label', 'page');
    buttons.forEach(function (b, i) {
      b.el = element('button', null, b.text);
      b.el.type = 'button';
      b.el.addEventListener('click', function () {
        page = b.to();
        render();
      });
      pager.appendChild(b.el);
      if (i === 1) {
        pager.appendChild(document.createTextNode(' page '));
        pager.appendChild(pageInput);
        pager.appendChild(document.createTextNode(' '));
        pager.appendChild(ofPages);
        pager.appendChild(document.createTextNode(' '));
      }
    });
    controls.appendChild(pager);
    controls.appendChild(status);
    pageInput.addEventListener('change', function () {
      page = (parseInt(pageInput.value, 10) || 1) - 1;
      render();
    });
    kernelSelect.addEventListener('change', function () {
      setKernel(+kernelSelect.value);
      page = 0;
      render();
    });
    sizeSelect.addEventListener('change', function () {
      var firstRow = page * size;
      size = +sizeSelect.value;
      page = Math.floor(firstRow / size);
      render();
    });
    function fromAddress() {
      var p = new URLSearchParams(window.location.hash.slice(1));
      var rowsWanted = parseInt(p.get('dispatch-rows'), 10), name = p.get('dispatch-kernel');
      if (rowsWanted >= 10 && rowsWanted <= 100000) {
        size = rowsWanted;
      }
      if (name != null) {
        setKernel(data.kernels.findIndex(function (k) { return k.name === name; }));
      }
      page = (parseInt(p.get('dispatch-page'), 10) || 1) - 1;
      sizeSelect.textContent = '';
      SIZES.concat(SIZES.indexOf(size) < 0 ? [size] : []).sort(function (a, b) { return a - b; })
        .forEach(function (s) { sizeSelect.appendChild(new Option(String(s), String(s))); });
      sizeSelect.value = String(size);
      kernelSelect.value = String(kernel);
      render();
    }
    window.addEventListener('hashchange', fromAddress);
    fromAddress();
    return rows.length;
  }

  var dispatches = 0, kernels = 0;
  if (data.profiling) {
    addSwatches();
    kernels = drawChart();
    dispatches = setupTimeline();
    var rowCount = setupDispatchTable();
    window.addEventListener('resize', drawChart);
    var canvas = document.getElementById('timeline'), chart = document.getElementById('kernel-chart');
    if (canvas) {
      document.body.dataset.timelineBox = rect(canvas, 0, 0);
      document.body.dataset.lanes = laneBoxes();
    }
    if (chart) {
      document.body.dataset.chartBox = rect(chart, 0, 0);
    }
    document.body.dataset.dispatchRows = rowCount;
    document.body.dataset.cpuColors = Object.keys(CPU_STYLES).map(function (name) {
      return CPU_STYLES[name].fill + (CPU_STYLES[name].hatch ? ',' + CPU_STYLES[name].hatch : '');
    }).join(',');
  }
  wgprofPage.rendered('wgprof report rendered: ' + dispatches + ' dispatches, ' + kernels + ' kernels');
})();
