/* benchnb leaderboard site: draws a page from the JSON in #benchnb-data with Tabulator and Vega-Lite.
   Names (models, datasets, metrics) are data: they reach the page only as text (textContent, createTextNode,
   Tabulator's plaintext formatter), never as HTML. The ranking mirrors benchnb.resultsdb.site.rank_models. */
(function () {
  'use strict';
  const DATA = JSON.parse(document.getElementById('benchnb-data').textContent);
  const app = document.getElementById('app');

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }
  const fmt = (x, d = 3) => (x === null || x === undefined || Number.isNaN(x)) ? '—' : Number(x).toFixed(d);
  const mean = xs => { const v = xs.filter(x => x !== null && x !== undefined && !Number.isNaN(x));
                       return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null; };
  /* Tabulator puts a formatter's string in as HTML: names go in as text nodes */
  const plain = cell => { const v = cell.getValue(); return document.createTextNode(v === null || v === undefined ? '—' : String(v)); };
  const textTitle = t => ({title: t, titleFormatter: () => document.createTextNode(t)});

  if (document.body.dataset.page === 'overview') overview(); else leaderboard();

  /* ---------------------------------------------------------------- overview */
  function overview() {
    app.append(el('p', {class: 'sub'}, `benchnb ${DATA.benchnb} · generated ${DATA.generated} · ${DATA.pages.length} `
                  + 'leaderboards (family × task). Open one to filter, weight and re-rank.'));
    const head = ['family', 'task', 'models', 'controls', 'datasets', 'units done', 'units failed', 'QC flags',
                  'wall s (all units)', 'leader', 'scaled by'];
    const rows = DATA.pages.map(p => el('tr', {},
      el('td', {}, p.family), el('td', {}, el('a', {href: p.href}, p.task)), el('td', {class: 'num'}, p.models),
      el('td', {class: 'num'}, p.controls), el('td', {class: 'num'}, p.datasets), el('td', {class: 'num'}, p.done),
      el('td', {class: 'num'}, p.failed), el('td', {class: 'num' + (p.qc ? ' flag' : '')}, p.qc),
      el('td', {class: 'num'}, fmt(p.wall_s, 1)), el('td', {}, p.leader ?? '—'), el('td', {}, p.scale)));
    app.append(el('table', {id: 'overview', class: 'plain'}, el('thead', {}, el('tr', {}, head.map(h => el('th', {}, h)))),
                  el('tbody', {}, rows)));
  }

  /* ------------------------------------------------------------- leaderboard */
  function leaderboard() {
    const metricInfo = Object.fromEntries(DATA.metrics.map(m => [m.key, m]));
    const role = Object.fromEntries(DATA.models.map(m => [m.name, m.role]));
    const groups = [...new Set(DATA.metrics.map(m => m.group))];
    const hasControls = DATA.models.some(m => m.role === 'negative') && DATA.models.some(m => m.role === 'positive');
    const state = {
      scale: hasControls ? 'controls' : 'minmax', missing: 'exclude',
      baseline: Object.keys(DATA.verdicts)[0] || null,
      datasets: new Set(DATA.datasets), models: new Set(DATA.models.map(m => m.name)),
      checkedModels: new Set(DATA.models.map(m => m.name)),
      metrics: new Set(DATA.metrics.map(m => m.key)), gw: {}, mw: {}, modelText: '',
    };
    const site = window.benchnbSite = {state, renders: 0, ranking: [], errors: []};
    const id = (m, d, k) => `${m}\u0000${d}\u0000${k}`;
    const cellValue = new Map(DATA.cells.map(c => [id(c[0], c[1], c[2]), c[3]]));

    /* scaled score of every cell: raw (lower-is-better negated), minmax over the models shown, controls */
    function scaled(scale) {
      const out = new Map(), byKD = new Map();
      for (const c of DATA.cells) {
        const g = `${c[2]}\u0000${c[1]}`;
        if (!byKD.has(g)) byKD.set(g, []);
        byKD.get(g).push(c);
      }
      for (const cs of byKD.values()) {
        const hb = metricInfo[cs[0][2]].higher_better ? 1 : -1;
        if (scale === 'raw') { cs.forEach(c => out.set(id(c[0], c[1], c[2]), c[3] === null ? null : c[3] * hb)); continue; }
        if (scale === 'controls') {
          const neg = mean(cs.filter(c => role[c[0]] === 'negative').map(c => c[3]));
          const pos = mean(cs.filter(c => role[c[0]] === 'positive').map(c => c[3]));
          cs.forEach(c => out.set(id(c[0], c[1], c[2]),
            (neg === null || pos === null || pos === neg || c[3] === null) ? null : (c[3] - neg) / (pos - neg)));
          continue;
        }
        const ref = cs.filter(c => !role[c[0]] && state.models.has(c[0]) && c[3] !== null).map(c => c[3] * hb);
        const lo = Math.min(...ref), hi = Math.max(...ref);
        cs.forEach(c => out.set(id(c[0], c[1], c[2]), c[3] === null || !ref.length ? null
                                : (hi === lo ? 1 : (c[3] * hb - lo) / (hi - lo))));
      }
      return out;
    }
    const weightOf = k => state.metrics.has(k) && (state.mw[k] ?? 1) > 0 && (state.gw[metricInfo[k].group] ?? 1) > 0;

    /* the ranking: per-metric means over the chosen datasets, weighted groups, missing policy */
    function rank(scores) {
      const keys = DATA.metrics.map(m => m.key).filter(weightOf);
      const dsets = DATA.datasets.filter(d => state.datasets.has(d));
      const rows = [], ranked = DATA.models.filter(m => !m.role && state.models.has(m.name));
      const ok = x => x !== null && x !== undefined;
      /* a metric × dataset no model can be scored on (its controls coincide) is left out, not counted missing */
      const blocks = keys.flatMap(k => dsets.filter(d => ranked.some(m => ok(scores.get(id(m.name, d, k))))).map(d => [k, d]));
      for (const m of ranked) {
        let any = false;
        const per = {};
        for (const k of keys) {
          if (dsets.some(d => cellValue.has(id(m.name, d, k)))) any = true;
          per[k] = mean(dsets.map(d => scores.get(id(m.name, d, k))).map(x => x === undefined ? null : x));
        }
        const have = blocks.filter(([k, d]) => ok(scores.get(id(m.name, d, k)))).length;
        if (!any) continue;
        let num = 0, den = 0;
        for (const g of groups) {
          const ks = keys.filter(k => metricInfo[k].group === g);
          let n = 0, d = 0;
          for (const k of ks) if (per[k] !== null) { n += per[k] * (state.mw[k] ?? 1); d += (state.mw[k] ?? 1); }
          if (d > 0) { const W = state.gw[g] ?? 1; num += W * n / d; den += W; }
        }
        const complete = have === blocks.length;
        let agg = den > 0 ? num / den : null;
        if (state.missing === 'exclude' && !complete) agg = null;
        rows.push({model: m.name, aggregate: agg, complete, per});
      }
      rows.sort((a, b) => (b.complete - a.complete) || ((b.aggregate ?? -Infinity) - (a.aggregate ?? -Infinity))
                          || (a.aggregate === null) - (b.aggregate === null) || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
      rows.forEach((r, i) => { r.rank = r.aggregate === null ? null : i + 1; });
      return {rows, keys, dsets};
    }

    /* ---------------------------------------------------------- controls UI */
    const nav = el('nav', {}, el('a', {href: 'index.html'}, '← all leaderboards'), ' · tasks of ', DATA.family, ': ',
                   DATA.siblings.map((s, i) => [i ? ', ' : '', s.task === DATA.task ? el('b', {}, s.task)
                                               : el('a', {href: s.href}, s.task)]));
    app.prepend(nav);
    app.append(el('p', {class: 'sub'}, `benchnb ${DATA.benchnb} · generated ${DATA.generated}. A missing result is `
                  + 'shown as missing (—), never counted as 0. Controls are shown in grey and not ranked.'));
    const select = (name, label, opts, value) => el('label', {}, label + ' ',
      el('select', {id: name, onchange: e => { state[name] = e.target.value; render(); }},
         opts.map(([v, t]) => el('option', {value: v, selected: v === value}, t))));
    const scaleOpts = [['raw', 'raw'], ['minmax', 'min-max scaled'], ['controls', 'scaled between controls']];
    const checks = (name, items, set, labelOf) => el('fieldset', {id: name}, el('legend', {}, name),
      items.map(x => el('label', {class: 'check', 'data-name': x}, el('input', {type: 'checkbox', checked: true, value: x,
        onchange: e => { e.target.checked ? set.add(x) : set.delete(x); render(); }}), ' ', labelOf ? labelOf(x) : x)));
    const weight = (attrs, on) => el('input', {type: 'number', min: 0, step: 0.1, value: 1, class: 'weight', ...attrs,
                                                 oninput: e => { on(parseFloat(e.target.value)); render(); }});
    const metricBox = el('fieldset', {id: 'metrics'}, el('legend', {}, 'metrics: group weight, then metric weight'),
      groups.map(g => el('div', {class: 'group'},
        el('label', {}, el('b', {}, g), ' ', weight({'data-group': g}, v => { state.gw[g] = isNaN(v) ? 0 : v; })),
        DATA.metrics.filter(m => m.group === g).map(m => el('label', {class: 'check', 'data-name': m.key},
          el('input', {type: 'checkbox', checked: true, value: m.key,
                       onchange: e => { e.target.checked ? state.metrics.add(m.key) : state.metrics.delete(m.key); render(); }}),
          ' ', m.key, m.higher_better ? '' : ' (lower is better)', ' ',
          weight({'data-metric': m.key}, v => { state.mw[m.key] = isNaN(v) ? 0 : v; }))))));
    const modelFilter = el('input', {id: 'model-filter', type: 'search', placeholder: 'filter models by name',
                                     oninput: e => { state.modelText = e.target.value.toLowerCase(); render(); }});
    app.append(el('section', {id: 'controls'},
      el('div', {class: 'row'}, select('scale', 'scores:', scaleOpts, state.scale),
         select('missing', 'missing results:', [['exclude', 'exclude from the ranking'], ['last', 'rank last']], state.missing),
         state.baseline ? select('baseline', 'verdicts against:', Object.keys(DATA.verdicts).map(b => [b, b]), state.baseline) : '',
         el('button', {id: 'download', type: 'button', onclick: () => site.table.download('csv', `${DATA.family}-${DATA.task}.csv`)},
            'download CSV of the table shown'),
         el('button', {id: 'download-details', type: 'button',
                       onclick: () => site.details.download('csv', `${DATA.family}-${DATA.task}-per-dataset.csv`)},
            'download CSV of the per-dataset table')),
      el('div', {class: 'row'}, checks('datasets', DATA.datasets, state.datasets),
         el('fieldset', {id: 'models'}, el('legend', {}, 'models'), modelFilter,
            DATA.models.map(m => el('label', {class: 'check' + (m.role ? ' control' : ''), 'data-name': m.name},
              el('input', {type: 'checkbox', checked: true, value: m.name,
                           onchange: e => { e.target.checked ? state.checkedModels.add(m.name) : state.checkedModels.delete(m.name); render(); }}),
              ' ', m.name, m.role ? ` (${m.role} control)` : ''))),
         metricBox)));
    const formula = el('pre', {id: 'formula'});
    app.append(el('h2', {}, 'Leaderboard'), formula, el('div', {id: 'leaderboard'}));
    app.append(el('h2', {}, 'Per dataset: raw, min-max, control-scaled, interval and verdict'), el('div', {id: 'details'}));
    const qcList = el('ul', {id: 'qc'});
    app.append(el('h2', {}, 'QC flags'), qcList);
    app.append(el('h2', {}, 'Cost per unit'), el('div', {id: 'cost'}), el('div', {id: 'cost-plot', class: 'plot'}));
    app.append(el('h2', {}, 'Critical-difference diagram'), el('p', {id: 'cd-note', class: 'sub'}),
               el('div', {id: 'cd', class: 'plot'}));
    const dialog = el('dialog', {id: 'provenance'});
    document.body.append(dialog);

    /* ----------------------------------------------------------- provenance */
    function showProvenance(model) {
      dialog.replaceChildren(el('h3', {}, 'Provenance: ', model),
        el('button', {type: 'button', class: 'close', onclick: () => dialog.close()}, 'close'));
      const units = Object.entries(DATA.units).filter(([, u]) => u.model === model && state.datasets.has(u.dataset));
      for (const [uid, u] of units) {
        const dl = el('dl', {});
        const add = (k, v) => dl.append(el('dt', {}, k), el('dd', {}, typeof v === 'object' && v !== null ? JSON.stringify(v) : (v ?? '—')));
        add('unit', uid); add('dataset', u.dataset); add('status', u.status + (u.error ? ` (${u.error})` : ''));
        add('benchnb', u.benchnb); add('git revision', u.git); add('packages', u.packages); add('python', u.python);
        add('dataset fingerprint', u['dataset fingerprint']); add('seed', u.seed); add('options', u.options);
        add('machine', u.machine); add('run', u.run); add('started', u.started); add('finished', u.finished);
        add('cost', u.cost);
        const o = u.observations;
        dl.append(el('dt', {}, 'observations'), el('dd', {}, o && o.file ? el('a', {href: o.file}, `${o.n} observations (CSV)`) : 'none recorded'));
        dialog.append(el('section', {class: 'unit'}, dl));
      }
      if (!units.length) dialog.append(el('p', {}, 'no units of this model on the chosen datasets'));
      dialog.showModal();
    }

    /* --------------------------------------------------------------- tables */
    const colour = (cell, ranks) => {
      const r = ranks[cell.getField()] && ranks[cell.getField()][cell.getRow().getData().model];
      const n = ranks[cell.getField()] ? ranks[cell.getField()].n : 0;
      if (r && n > 1) cell.getElement().style.background = `hsl(145, 55%, ${45 + 48 * (r - 1) / (n - 1)}%)`;
      else if (r) cell.getElement().style.background = 'hsl(145, 55%, 45%)';
      const v = cell.getValue();
      return v === null || v === undefined ? '—' : Number(v).toFixed(3);
    };
    let colRanks = {};
    site.table = new Tabulator('#leaderboard', {
      data: [], layout: 'fitDataTable', renderVertical: 'basic', index: 'model', columns: [],
      rowFormatter: row => { if (row.getData().control) row.getElement().classList.add('control'); },
    });
    site.details = new Tabulator('#details', {
      data: [], layout: 'fitDataTable', renderVertical: 'basic', pagination: true, paginationSize: 25,
      columns: [
        {title: 'model', field: 'model', formatter: plain, headerFilter: 'input'},
        {title: 'dataset', field: 'dataset', formatter: plain, headerFilter: 'input'},
        {title: 'metric', field: 'metric', formatter: plain, headerFilter: 'input'},
        {title: 'raw', field: 'raw', formatter: c => fmt(c.getValue())},
        {title: 'min-max', field: 'minmax', formatter: c => fmt(c.getValue())},
        {title: 'control-scaled', field: 'controls', formatter: c => {
          const v = c.getValue();
          if (v !== null && !role[c.getRow().getData().model] && (v < -1e-9 || v > 1 + 1e-9)) c.getElement().classList.add('flag');
          return fmt(v); }},
        {title: 'mean [95% CI] over units', field: 'interval', formatter: plain},
        {title: 'Δ vs baseline [95% CI]', field: 'delta', formatter: plain},
        {title: 'p (Holm)', field: 'p_holm', formatter: c => fmt(c.getValue(), 4)},
        {title: 'verdict', field: 'verdict', formatter: plain},
      ],
    });
    const cost = costRows();
    site.cost = new Tabulator('#cost', {
      data: cost, layout: 'fitDataTable', renderVertical: 'basic',
      columns: [{title: 'model', field: 'model', formatter: plain}, {title: 'units', field: 'units'},
                {title: 'wall s (sum)', field: 'wall_s', formatter: c => fmt(c.getValue(), 2)},
                {title: 'CPU s (sum)', field: 'cpu_s', formatter: c => fmt(c.getValue(), 2)},
                {title: 'peak memory MiB (max)', field: 'peak_rss_mb', formatter: c => fmt(c.getValue(), 1)},
                {title: 'GPU peak MiB (max)', field: 'gpu_peak_mb', formatter: c => fmt(c.getValue(), 1)}],
    });
    function costRows() {
      const by = {};
      for (const u of Object.values(DATA.units)) {
        const r = by[u.model] ??= {model: u.model, units: 0, wall_s: null, cpu_s: null, peak_rss_mb: null, gpu_peak_mb: null};
        r.units += 1;
        const c = u.cost || {};
        for (const k of ['wall_s', 'cpu_s']) if (c[k] !== null && c[k] !== undefined) r[k] = (r[k] ?? 0) + c[k];
        for (const k of ['peak_rss_mb', 'gpu_peak_mb']) if (c[k] !== null && c[k] !== undefined) r[k] = Math.max(r[k] ?? 0, c[k]);
      }
      return Object.values(by);
    }
    const sizes = Object.values(DATA.units).filter(u => u.size && u.cost && u.cost.wall_s !== null);
    if (new Set(sizes.map(u => u.size)).size > 1) {
      plot('#cost-plot', {width: 420, height: 220, data: {values: sizes.map(u => ({model: u.model, size: u.size, wall_s: u.cost.wall_s}))},
        mark: {type: 'line', point: true}, encoding: {x: {field: 'size', type: 'quantitative', scale: {type: 'log'}, title: 'data size'},
        y: {field: 'wall_s', type: 'quantitative', scale: {type: 'log'}, title: 'wall s'}, color: {field: 'model', type: 'nominal'}}});
    } else document.getElementById('cost-plot').append(el('p', {class: 'sub'}, 'one data size here: no cost-against-size plot'));

    function plot(sel, spec) {
      try {
        const vg = vegaLite.compile(spec).spec;
        const view = new vega.View(vega.parse(vg), {renderer: 'svg', container: sel, hover: true});
        return view.runAsync();
      } catch (e) { site.errors.push(String(e)); document.querySelector(sel).textContent = 'plot failed: ' + e; }
    }

    /* ------------------------------------------------------------- render */
    function render() {
      const visible = m => state.checkedModels.has(m) && (!state.modelText || m.toLowerCase().includes(state.modelText));
      state.models = new Set(DATA.models.map(m => m.name).filter(visible));
      const sc = {raw: scaled('raw'), minmax: scaled('minmax'), controls: scaled('controls')};
      const scores = sc[state.scale];
      const {rows, keys, dsets} = rank(scores);
      site.ranking = rows.map(r => ({model: r.model, rank: r.rank, aggregate: r.aggregate, complete: r.complete}));
      colRanks = {};
      for (const k of keys) {
        const rs = rows.filter(r => r.per[k] !== null).sort((a, b) => b.per[k] - a.per[k]);
        colRanks['m' + keys.indexOf(k)] = Object.fromEntries(rs.map((r, i) => [r.model, i + 1]));
        colRanks['m' + keys.indexOf(k)].n = rs.length;
      }
      const qcBy = {};
      for (const f of DATA.qc) (qcBy[f.model] ??= []).push(f);
      const costBy = Object.fromEntries(costRows().map(c => [c.model, c]));
      const display = (m, k) => mean(dsets.map(d => {
        const v = state.scale === 'raw' ? cellValue.get(id(m, d, k)) : scores.get(id(m, d, k)); return v === undefined ? null : v; }));
      const data = rows.map(r => ({rank: r.rank, model: r.model, aggregate: r.aggregate, complete: r.complete ? '' : 'missing results',
        qc: (qcBy[r.model] || []).length ? `${(qcBy[r.model] || []).length} flag(s)` : '', wall_s: costBy[r.model] ? costBy[r.model].wall_s : null,
        ...Object.fromEntries(keys.map((k, i) => ['m' + i, display(r.model, k)]))}));
      for (const m of DATA.models.filter(m => m.role && state.models.has(m.name)))
        data.push({rank: null, model: m.name, aggregate: null, complete: `${m.role} control`, control: true,
                   qc: '', wall_s: costBy[m.name] ? costBy[m.name].wall_s : null,
                   ...Object.fromEntries(keys.map((k, i) => ['m' + i, display(m.name, k)]))});
      const cols = [
        {title: 'rank', field: 'rank', sorter: 'number', formatter: c => c.getValue() ?? '—', headerSortStartingDir: 'asc'},
        {title: 'model', field: 'model', formatter: plain, sorter: 'string'},
        {title: 'aggregate', field: 'aggregate', sorter: 'number', formatter: c => fmt(c.getValue())},
        {title: 'missing', field: 'complete', formatter: plain},
        {title: 'QC', field: 'qc', formatter: c => { if (c.getValue()) c.getElement().classList.add('flag'); return plain(c); }},
        ...keys.map((k, i) => ({...textTitle(k), field: 'm' + i, sorter: 'number', formatter: c => colour(c, colRanks), maxWidth: 130,
                                headerTooltip: `${metricInfo[k].group}: ${k}`})),
        {title: 'wall s', field: 'wall_s', sorter: 'number', formatter: c => fmt(c.getValue(), 2)},
        {title: 'provenance', field: 'prov', download: false, headerSort: false, formatter: c => {
          const b = el('button', {type: 'button', class: 'prov'}, 'show'); b.title = 'provenance of ' + c.getRow().getData().model;
          return b; }, cellClick: (e, c) => showProvenance(c.getRow().getData().model)},
      ];
      site.table.setColumns(cols);
      site.table.replaceData(data);
      detailRows(sc, dsets);
      formula.textContent = formulaText(keys);
      qcList.replaceChildren(...(DATA.qc.length ? DATA.qc.filter(f => state.models.has(f.model))
        .map(f => el('li', {}, el('b', {}, f.model), ` — ${f.flag}: ${f.detail}`)) : [el('li', {}, 'no flags')]));
      cd(scores, rows, keys, dsets);
      site.renders += 1;
      document.body.dataset.renders = site.renders;
    }

    function detailRows(sc, dsets) {
      const itv = new Map(DATA.intervals.filter(r => r[3] === null).map(r => [id(r[0], r[1], r[2]), r]));
      const ver = new Map((DATA.verdicts[state.baseline] || []).filter(r => r[3] === null).map(r => [id(r[0], r[1], r[2]), r]));
      const out = [];
      for (const c of DATA.cells) {
        if (!state.models.has(c[0]) || !state.datasets.has(c[1]) || !state.metrics.has(c[2])) continue;
        const k = id(c[0], c[1], c[2]), i = itv.get(k), v = ver.get(k);
        out.push({model: c[0], dataset: c[1], metric: c[2], raw: c[3], minmax: sc.minmax.get(k), controls: sc.controls.get(k),
                  interval: i ? `${fmt(i[4])} [${fmt(i[5])}, ${fmt(i[6])}] n=${i[7]}` : '',
                  delta: v ? `${fmt(v[4])} [${fmt(v[5])}, ${fmt(v[6])}] n=${v[8]}` : (c[0] === state.baseline ? 'baseline' : ''),
                  p_holm: v ? v[7] : null, verdict: v ? v[9] : ''});
      }
      site.details.replaceData(out);
    }

    function formulaText(keys) {
      const scaleText = {raw: 's = x (a lower-is-better metric: −x)',
                         minmax: 's = (x − min) / (max − min) over the models shown, per metric × dataset (oriented so higher is better)',
                         controls: 's = (x − negative) / (positive − negative), the controls\' means per metric × dataset'}[state.scale];
      const gs = groups.filter(g => keys.some(k => metricInfo[k].group === g));
      const gw = gs.map(g => `${state.gw[g] ?? 1}·${g}`).join(' + ');
      const mw = gs.map(g => `${g} = (${keys.filter(k => metricInfo[k].group === g).map(k => `${state.mw[k] ?? 1}·${k}`).join(' + ')}) / Σw`).join('\n  ');
      return `aggregate = (${gw}) / ΣW\n  ${mw}\n  each metric = mean over ${state.datasets.size} dataset(s) of ${scaleText}\n`
        + `missing results: ${state.missing === 'exclude' ? 'the model gets no aggregate and no rank' : 'aggregate over what it has, ranked after every complete model'}`;
    }

    /* critical difference: the datasets are the blocks (the unit of replication; metrics of one dataset are not
       independent), each model's weighted aggregate on each dataset ranked; Nemenyi CD at α = 0.05 */
    function datasetAggregate(scores, m, d, keys) {
      let num = 0, den = 0;
      for (const g of groups) {
        let n = 0, w = 0;
        for (const k of keys.filter(k => metricInfo[k].group === g)) {
          const x = scores.get(id(m, d, k));
          if (x !== null && x !== undefined) { n += x * (state.mw[k] ?? 1); w += state.mw[k] ?? 1; }
        }
        if (w > 0) { num += (state.gw[g] ?? 1) * n / w; den += state.gw[g] ?? 1; }
      }
      return den > 0 ? num / den : null;
    }
    function cd(scores, rows, keys, dsets) {
      const models = rows.map(r => r.model);
      const blocks = dsets.map(d => models.map(m => datasetAggregate(scores, m, d, keys)))
                          .filter(xs => xs.every(x => x !== null));
      const note = document.getElementById('cd-note'), box = document.getElementById('cd');
      box.replaceChildren();
      const k = models.length, N = blocks.length;
      if (k < 2 || k > 10 || N < 2) {
        note.textContent = `needs 2–10 models with an aggregate on each of at least 2 datasets (here ${k} models, ${N} datasets)`;
        return;
      }
      const sum = new Array(k).fill(0);
      for (const xs of blocks) xs.forEach((x, i) => { const above = xs.filter(y => y > x).length, ties = xs.filter(y => y === x).length;
                                                       sum[i] += above + (ties + 1) / 2; });
      const avg = sum.map(s => s / N), crit = DATA.q_alpha[k - 2] * Math.sqrt(k * (k + 1) / (6 * N));
      note.textContent = `average rank of each model's aggregate over ${N} datasets (the blocks); CD = ${crit.toFixed(2)} `
        + '(Nemenyi, α = 0.05): models closer than CD are not told apart';
      const pts = models.map((m, i) => ({model: m, rank: avg[i]})).sort((a, b) => a.rank - b.rank);
      plot('#cd', {width: 460, height: 24 * k + 30, layer: [
        {data: {values: pts}, mark: {type: 'point', filled: true, size: 80},
         encoding: {x: {field: 'rank', type: 'quantitative', scale: {domain: [1, k], reverse: true}, title: 'average rank (1 = best)'},
                    y: {field: 'model', type: 'nominal', sort: null, title: null}}},
        {data: {values: pts.map(p => ({model: p.model, lo: p.rank, hi: Math.min(k, p.rank + crit)}))}, mark: {type: 'rule', opacity: 0.4, strokeWidth: 3},
         encoding: {x: {field: 'lo', type: 'quantitative'}, x2: {field: 'hi'}, y: {field: 'model', type: 'nominal', sort: null}}}]});
    }

    window.addEventListener('error', e => site.errors.push(String(e.message)));
    Promise.all([site.table, site.details, site.cost].map(t => new Promise(r => t.on('tableBuilt', r)))).then(render);
  }
})();
