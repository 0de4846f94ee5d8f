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
  /* A row whose base median is 0 has no ratio: its change is in microseconds, new less base. */
  function shift(ns) {
    return ns == null ? '-' : (ns >= 0 ? '+' : '') + us(ns) + ' us';
  }
  function changeOf(row) {
    return row.zero_base ? shift(row.change_ns) : change(row.ratio);
  }
  function interval(row) {
    if (row.zero_base) {
      var a = row.change_ns_interval;
      return a ? '[' + shift(a[0]) + ', ' + shift(a[1]) + ']' : '-';
    }
    return row.interval ? '[' + change(row.interval[0]) + ', ' + change(row.interval[1]) + ']' : '-';
  }
  function pvalue(p) {
    return p == null ? '-' : p < 0.001 ? '<0.001' : p.toFixed(3);
  }
  function spread(side) {
    return side && side.q1_ns != null && side.q3_ns != null ? us(side.q3_ns - side.q1_ns) : '-';
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

  /* The interval of the new median in ns: the ratio's interval times the base's median, or over a
   * base median of 0 the change's own; null without one. */
  function newInterval(row) {
    if (row.zero_base) {
      var a = row.change_ns_interval;
      return a && median(row.base) != null ? [median(row.base) + a[0], median(row.base) + a[1]] : null;
    }
    if (row.interval && median(row.base) != null && row.interval[1] != null) {
      return [row.interval[0] * median(row.base), row.interval[1] * median(row.base)];
    }
    return null;
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
    var bounds = newInterval(row);
    if (bounds) {
      var w = element('div', 'whisker');
      var lo = bounds[0], hi = bounds[1];
      w.style.left = (100 * lo / scale).toFixed(3) + '%';
      w.style.width = (100 * (hi - lo) / scale).toFixed(3) + '%';
      w.title = 'interval of the new median: ' + us(lo) + ' to ' + us(hi) + ' us';
      bars.appendChild(w);
    }
    line.appendChild(bars);
    var figures = element('div', 'figures');
    figures.appendChild(document.createTextNode(us(median(row.base)) + ARROW + us(median(row.new)) + ' us' + DOT));
    figures.appendChild(element('b', null, (row.ratio == null && !row.zero_base ? '' : changeOf(row) + ' ') +
      row.verdict));
    if (row.interval || row.change_ns_interval) {
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
      var bounds = newInterval(r);
      if (bounds) {
        scale = Math.max(scale, bounds[1]);
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
    /* Nine columns: the spreads under the medians, the rank test under the p-value. */
    var heads = [first, 'n base / new', 'base median us (IQR)', 'new median us (IQR)', 'measured'];
    if (data.separated) {
      heads.push('vs common');
    }
    heads.concat(['interval', 'p (Holm) (rank p)', 'verdict'])
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
      var judged = data.separated && r.against_common ? r.against_common : r;
      var cells = [[(r.base ? r.base.count : '-') + ' / ' + (r.new ? r.new.count : '-')],
        [us(median(r.base)), spread(r.base)], [us(median(r.new)), spread(r.new)], [changeOf(r)]];
      if (data.separated) {
        cells.push([r.zero_base ? changeOf(r) : r.against_common ? change(r.against_common.ratio) : '-']);
      }
      cells.concat([[interval(judged)], [pvalue(r.p_holm), pvalue(r.rank_p)]]).forEach(function (lines) {
        var td = element('td', null, String(lines[0]));
        if (lines.length > 1) {
          td.appendChild(element('br'));
          td.appendChild(element('small', 'second', '(' + lines[1] + ')'));
        }
        tr.appendChild(td);
      });
      tr.appendChild(element('td', 'verdict ' + r.verdict, r.verdict + (r.in_common ? ' (common)' : '') +
        (r.fails ? ' (fails the gate)' : r.fails_reversed ? ' (fails the gate read the other way)' : '')));
      body.appendChild(tr);
    });
    wrap.appendChild(t);
    section.appendChild(wrap);
    main.appendChild(section);
  }

  /* The change the kernels share, the runs' speeds, the geometric mean, the runs that disagree. */
  function machine(main) {
    var section = element('section');
    section.id = 'machine';
    section.appendChild(element('h2', null, 'The machine'));
    var lines = [];
    if (data.separated && data.common) {
      var c = data.common, members = data.kernels.filter(function (r) {
        return r.in_common;
      }), shared = members.map(function (r) {
        return shown(r.name);
      }), reference = members.some(function (r) {
        return r.reference;
      });
      var what = reference ? 'The machine\'s speed, as wgprof\'s reference kernel moved with them'
        : data.common_not_machine ? 'A change that touches these kernels, not the machine: wgprof\'s reference ' +
          'kernel did not move with them (gated)'
        : 'The machine\'s speed, or a change that touches every kernel';
      lines.push('Common to ' + shared.length + ' of ' + data.kernels_compared + ' kernels (' + shared.join(', ') +
        '): ' + change(c.ratio) + ' ' + interval(c) + ', p (Holm) ' + pvalue(c.p_holm) + ', rank p ' +
        pvalue(c.rank_p) + ': ' + c.verdict + (c.fails ? ' (fails the gate)' : '') + '. ' + what +
        (data.gate_common || data.common_not_machine ? '.' : ' (not gated: --gate-common gates it).') +
        ' The changes in the tables are against it, with each run\'s speed taken out.');
      if (data.common_guessed) {
        lines.push('As many kernels moved the other way against these: which of the two groups changed is read ' +
          'from each kernel\'s quickest tenth of its times on each side, which a side that never ran unloaded ' +
          'can mislead (runs made with \'wgprof run --reference\' settle it); the change of one group against ' +
          'the other is measured either way. The quickest times chose these in ' + (data.common_unsure ? 'only ' : '') +
          (data.common_support * 100).toFixed(0) + '% of the bootstrap\'s resamples' + (!data.common_unsure ? '.'
          : data.fail_if_slower_pct == null ? ': too close to call.'
          : data.gate_both_ways ? ': too close to call, so --fail-if-slower reads it both ways.'
          : ': too close to call (--gate-both-ways gates either reading).'));
      }
      ['base', 'new'].forEach(function (s) {
        lines.push('Speed of each ' + s + ' run (1: the base\'s typical run; higher: slower): ' +
          data.speed[s].map(function (v) {
            return v == null ? '-' : v.toFixed(3);
          }).join(' '));
      });
    } else if (data.kernels_compared === 1) {
      lines.push('One kernel compared: the machine\'s speed cannot be told apart from its change; changes are ' +
        'as measured.');
    }
    if (data.geomean_ratio != null) {
      lines.push('Geometric mean of the kernels\' changes as measured: ' + change(data.geomean_ratio) + '.');
    }
    ['base', 'new'].forEach(function (s) {
      var names = data.kernels.concat(data.total ? [data.total] : []).filter(function (r) {
        return r[s] && r[s].runs_disagree;
      }).map(function (r) {
        return r === data.total ? 'the total' : shown(r.name);
      });
      if (names.length) {
        lines.push('Warning: the ' + s + ' side\'s runs disagree by more than each run\'s own interval allows (' +
          names.join(', ') + '): the machine\'s speed moved between runs.');
      }
    });
    data.kernels.concat(data.total ? [data.total] : []).forEach(function (r) {
      var runs = ['base', 'new'].filter(function (s) {
        return r[s] && r[s].run_medians_ns;
      }).map(function (s) {
        return s + ' ' + r[s].run_medians_ns.map(us).join(' ');
      });
      if (runs.length) {
        lines.push((r === data.total ? 'total (per iteration)' : shown(r.name)) + ': medians of the runs (us): ' +
          runs.join('; '));
      }
    });
    var zero = data.kernels.concat(data.total ? [data.total] : [], data.scopes).filter(function (r) {
      return r.zero_base;
    });
    if (zero.length) {
      lines.push('Base median 0 ns: no ratio can be told for ' + zero.map(function (r) {
        return (r === data.total ? 'total (per iteration)' : shown(r.name)) + ' (the base below ' +
          (r.base_below_ns > 0 ? r.base_below_ns + ' ns' : 'what its timer can tell, not known') + ')';
      }).join(', ') + ': their change is the new median less the base\'s, in us, with its interval; slower where ' +
        'that interval lies above the base\'s bound and the change above the bound by more than ' +
        data.threshold_pct + '%, never faster' + (data.fail_if_slower_pct == null ? '.' : '; the gate fails where ' +
        'the interval lies above the bound by more than ' + data.fail_if_slower_pct + '%.'));
    }
    lines.push(plural(data.rows_tested, 'row') + ' tested; p-values corrected by Holm\'s method.');
    lines.forEach(function (l) {
      section.appendChild(element('p', l.indexOf('Warning') === 0 ? 'note' : null, l));
    });
    main.appendChild(section);
  }

  var main = document.querySelector('main');
  header(main);
  chart(main);
  table(main, 'Kernels and the total', 'kernel-table', 'kernel', data.kernels.concat(data.total ? [data.total] : []));
  table(main, 'Scopes', 'scope-table', 'scope', data.scopes);
  machine(main);
  main.appendChild(element('p', 'caption', 'Change: the new median over the base\'s, of the per-dispatch GPU ' +
    'times (per-iteration totals for the total); ' + data.confidence * 100 + '% interval from a bootstrap of ' +
    data.resamples + ' resamples (seed ' + data.seed + '); slower or faster where the interval excludes no ' +
    'change, the medians differ by more than ' + data.threshold_pct + '% and the p-value corrected by Holm\'s ' +
    'method is below ' + (1 - data.confidence).toFixed(2) + '.'));
  main.appendChild(element('footer', null, 'Made by wgprof ' + data.wgprof_version + '.'));
  wgprofPage.rendered('wgprof diff rendered: ' + plural(data.kernels.length, 'kernel') + ', ' +
    plural(data.scopes.length, 'scope'));
})();
