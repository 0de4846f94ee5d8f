(function () {
  'use strict';
  /* Everything on the page is drawn from the comparison in #wgprof-diff-data (the JSON that
   * `wgprof diff --json` writes); text goes in through textContent only. */
  var data = JSON.parse(document.getElementById('wgprof-diff-data').textContent);
  /* What both pages share (common/page/base.js, written before this script). */
  var element = wgprofPage.element, us = wgprofPage.us, DOT = wgprofPage.DOT;
  var ARROW = ' \u2192 ';

  /* A name as shown: bidirectional overrides and isolates written out, so that a name cannot
   * reorder the text around it. */
  function shown(name) {
    return name.replace(/[\u202a-\u202e\u2066-\u2069]/g, function (c) {
      return '\\u' + c.charCodeAt(0).toString(16);
    });
  }
  function change(ratio) {
    if (ratio == null) {
      return '-';
    }
    var pct = (ratio - 1) * 100;
    if (Math.abs(pct) < 0.05) {
      pct = 0;
    }
    return (pct >= 0 ? '+' : '') + pct.toFixed(1) + '%';
  }
  function interval(row) {
    return row.interval ? '[' + change(row.interval[0]) + ', ' + change(row.interval[1]) + ']' : '-';
  }
  function median(side) {
    return side ? side.median_ns : null;
  }
  function plural(n, word, many) {
    return n + ' ' + (n === 1 ? word : many || word + 's');
  }

  function side(label, p) {
    var box = element('div');
    box.appendChild(element('dt', null, label));
    var files = p.files && p.files.length > 1 ? p.files : [p.file];
    var named = files.slice(0, 3).map(shown).join(', ');
    if (files.length > 3) {
      named += ' and ' + (files.length - 3) + ' more';
    }
    if (files.length > 1) {
      named += ' (' + files.length + ' runs)';
    }
    var facts = [named, shown(p.adapter || '(adapter not named)')];
    if (p.implementation) {
      facts.push(shown(p.implementation));
    }
    facts.push('strategy ' + shown(p.strategy || '(not named)'));
    facts.push(p.timestamp_period_ns == null ? 'period varies' : 'period ' + p.timestamp_period_ns + ' ns');
    if (p.iterations != null) {
      facts.push(plural(p.iterations, 'iteration'));
    }
    facts.push(plural(p.dispatches, 'dispatch', 'dispatches'));
    box.appendChild(element('dd', null, facts.join(DOT)));
    return box;
  }

  function header(main) {
    var rows = data.kernels.concat(data.total ? [data.total] : [], data.scopes);
    var count = {slower: 0, faster: 0};
    rows.forEach(function (r) {
      count[r.verdict] = (count[r.verdict] || 0) + 1;
    });
    main.appendChild(element('h1', null, 'wgprof diff'));
    [['base', data.base], ['new', data.new]].forEach(function (s) {
      if (s[1].partial) {
        main.appendChild(element('p', 'note partial', 'PARTIAL RESULTS on the ' + s[0] + ' side: ' +
          shown(s[1].partial_reason || 'no reason given') + '. Its figures cover only the dispatches made ' +
          'before its program ended: the comparison is not one of whole runs.'));
      }
    });
    main.appendChild(element('p', 'sub verdicts', count.slower + ' slower, ' + count.faster + ' faster, ' +
      (count['no change'] || 0) + ' without a change' + DOT + plural(data.kernels.length, 'kernel') +
      (data.scopes.length ? ', ' + plural(data.scopes.length, 'scope') : '')));
    var sides = element('dl', 'sides');
    sides.appendChild(side('base', data.base));
    sides.appendChild(side('new', data.new));
    main.appendChild(sides);
    if (data.differences.length) {
      main.appendChild(element('p', 'note', 'The runs differ in ' + data.differences.map(function (d) {
        return d.what + ': ' + shown(d.base) + ARROW + shown(d.new);
      }).join('; ') + '.'));
    }
    if (data.fail_if_slower_pct != null) {
      main.appendChild(element('p', 'note', 'Gate (fail if slower by more than ' + data.fail_if_slower_pct +
        '% with ' + data.confidence * 100 + '% confidence): ' + (data.failed ? 'failed' : 'passed') + '.'));
    }
  }

  /* A row of the chart: the base's median above, the new one's below with its interval (the
   * ratio's interval times the base's median) across it, on one scale for every kernel. */
  function chartRow(row, scale) {
    var line = element('div', 'row');
    line.dataset.kernel = row.name;
    line.dataset.verdict = row.verdict;
    var name = element('div', 'name', shown(row.name));
    name.title = name.textContent;
    line.appendChild(name);
    var bars = element('div', 'bars');
    function bar(cls, ns) {
      if (ns == null) {
        return;
      }
      var b = element('div', 'bar ' + cls);
      b.style.width = (100 * ns / scale).toFixed(3) + '%';
      bars.appendChild(b);
    }
    bar('base', median(row.base));
    bar('new ' + row.verdict, median(row.new));
    if (row.interval && median(row.base) != null && row.interval[1] != null) {
      var w = element('div', 'whisker');
      var lo = row.interval[0] * median(row.base), hi = row.interval[1] * median(row.base);
      w.style.left = (100 * lo / scale).toFixed(3) + '%';
      w.style.width = (100 * (hi - lo) / scale).toFixed(3) + '%';
      w.title = 'interval of the new median: ' + us(lo) + ' to ' + us(hi) + ' us';
      bars.appendChild(w);
    }
    line.appendChild(bars);
    var figures = element('div', 'figures');
    figures.appendChild(document.createTextNode(us(median(row.base)) + ARROW + us(median(row.new)) + ' us' + DOT));
    figures.appendChild(element('b', null, (row.ratio == null ? '' : change(row.ratio) + ' ') + row.verdict));
    if (row.interval) {
      figures.appendChild(document.createTextNode(DOT + interval(row)));
    }
    line.appendChild(figures);
    return line;
  }

  function chart(main) {
    var section = element('section');
    section.appendChild(element('h2', null, 'Median GPU time per kernel'));
    var legend = element('div', 'legend');
    [['base', 'base'], ['new', 'new (red: slower, green: faster)'], ['interval', 'interval of the new median']]
      .forEach(function (l) {
      var item = element('span');
      item.appendChild(element('span', 'swatch key-' + l[0]));
      item.appendChild(document.createTextNode(l[1]));
      legend.appendChild(item);
    });
    section.appendChild(legend);
    var scale = 0;
    data.kernels.forEach(function (r) {
      [median(r.base), median(r.new)].forEach(function (v) {
        scale = v != null && v > scale ? v : scale;
      });
      if (r.interval && r.interval[1] != null && median(r.base) != null) {
        scale = Math.max(scale, r.interval[1] * median(r.base));
      }
    });
    var box = element('div', 'chart');
    box.id = 'diff-chart';
    data.kernels.forEach(function (r) {
      box.appendChild(chartRow(r, scale > 0 ? scale : 1));
    });
    section.appendChild(box);
    main.appendChild(section);
  }

  function table(main, title, id, first, rows) {
    if (!rows.length) {
      return;
    }
    var section = element('section');
    section.appendChild(element('h2', null, title));
    var wrap = element('div', 'table-wrap');
    var t = element('table');
    t.id = id;
    var head = element('tr');
    [first, 'base n', 'new n', 'base median us', 'new median us', 'change', 'interval', 'verdict']
      .forEach(function (h) {
        head.appendChild(element('th', null, h));
      });
    t.appendChild(element('thead')).appendChild(head);
    var body = t.appendChild(element('tbody'));
    rows.forEach(function (r) {
      var tr = element('tr');
      tr.dataset.verdict = r.verdict;
      var name = element('td', 'name', r === data.total ? 'total (per iteration)' : shown(r.name));
      name.title = name.textContent;
      tr.appendChild(name);
      [r.base ? r.base.count : '-', r.new ? r.new.count : '-', us(median(r.base)), us(median(r.new)),
        change(r.ratio), interval(r)].forEach(function (v) {
        tr.appendChild(element('td', null, String(v)));
      });
      tr.appendChild(element('td', 'verdict ' + r.verdict, r.verdict + (r.fails ? ' (fails the gate)' : '')));
      body.appendChild(tr);
    });
    wrap.appendChild(t);
    section.appendChild(wrap);
    main.appendChild(section);
  }

  var main = document.querySelector('main');
  header(main);
  chart(main);
  table(main, 'Kernels and the total', 'kernel-table', 'kernel', data.kernels.concat(data.total ? [data.total] : []));
  table(main, 'Scopes', 'scope-table', 'scope', data.scopes);
  main.appendChild(element('p', 'caption', 'Change: the new median over the base\'s, of the per-dispatch GPU ' +
    'times (per-iteration totals for the total); ' + data.confidence * 100 + '% interval from a bootstrap of ' +
    data.resamples + ' resamples (seed ' + data.seed + '); slower or faster where the interval excludes no ' +
    'change and the medians differ by more than ' + data.threshold_pct + '%.'));
  main.appendChild(element('footer', null, 'Made by wgprof ' + data.wgprof_version + '.'));
  wgprofPage.rendered('wgprof diff rendered: ' + plural(data.kernels.length, 'kernel') + ', ' +
    plural(data.scopes.length, 'scope'));
})();
