// A source's health charts from the recent window (GET /api/v1/sources/{name}/window), drawn by
// uPlot (the WebJar loaded by index.html as the global uPlot) and kept live by the window's
// blocking query. A chart is built once and then only given new data, so a live update never
// rebuilds what did not change; it is rebuilt only when its set of lines changes (a new standby).
import {el, fill, seconds} from './dom.js';
import {live, get, enc} from './api.js';
import {rangeFromUrl, rangeToUrl, rangeControls, apiQuery, bounds, compareShift, compareWords, provenance,
  storeErrors} from './range.js';
import {emptyText} from './chartstates.js';
import {followAlertPeriods, periodApplies, shadePeriods} from './alertperiods.js';

/** The metrics the charts read (query statistics have their own view). */
const METRICS = ['db_stats', 'db_size', 'backends', 'connections', 'locks', 'replication', 'wal_receiver',
  'xmin_horizon', 'temp_files', 'wal', 'checkpointer'];

/** Each chart: its lines from the window's series, the unit of its axis, the metric that feeds it. */
const CHARTS = [
  {id: 'tps', title: 'Transactions per second', unit: 'rate', needs: 'db_stats',
    lines: w => [named('commits', sum(pick(w, 'db_stats', 'xact_commit'))),
      named('rollbacks', sum(pick(w, 'db_stats', 'xact_rollback')))]},
  {id: 'connections', title: 'Connections', unit: 'count', needs: 'backends',
    lines: w => ['total', 'active', 'idle', 'idleintransaction', 'waiting']
      .map(column => named(column === 'idleintransaction' ? 'idle in transaction' : column, sum(pick(w, 'backends', column))))},
  {id: 'cache', title: 'Cache hit ratio', unit: 'percent', needs: 'db_stats',
    lines: w => [named('hit %', ratio(sum(pick(w, 'db_stats', 'blks_hit')), sum(pick(w, 'db_stats', 'blks_read'))))]},
  {id: 'size', title: 'Database size', unit: 'bytes', needs: 'db_size',
    lines: w => [named('size', sum(pick(w, 'db_size', 'size_b')))]},
  {id: 'lag', title: 'Replication lag', unit: 'bytes', needs: 'replication or wal_receiver', none: 'No standby is connected',
    lines: w => [...pick(w, 'replication', 'replay_lag_b').map(s => named(`replay ${s.tags.application_name || s.tags.client_addr || ''}`.trim(), s)),
      named('unreplayed (standby)', sum(pick(w, 'wal_receiver', 'unreplayed_b')))]},
  {id: 'locks', title: 'Sessions waiting for locks', unit: 'count', needs: 'locks', none: 'No lock is held or awaited',
    lines: w => [named('lock waits', sum(pick(w, 'locks', 'waiting'))), named('blocked', sum(pick(w, 'backends', 'blocked')))]},
  {id: 'oldest-tx', title: 'Oldest transaction', unit: 'seconds', needs: 'backends',
    lines: w => [named('longest transaction', sum(pick(w, 'backends', 'longest_tx_seconds')))]},
  {id: 'xmin', title: 'xmin age (transaction IDs)', unit: 'xids', needs: 'xmin_horizon',
    lines: w => [named('session xmin age', sum(pick(w, 'xmin_horizon', 'session_xmin_age'))),
      named('slot xmin age', sum(pick(w, 'xmin_horizon', 'slot_xmin_age')))]},
  {id: 'temp', title: 'Temporary file bytes', unit: 'byterate', needs: 'db_stats',
    lines: w => [named('temp bytes', sum(pick(w, 'db_stats', 'temp_bytes')))]},
  {id: 'wal', title: 'WAL bytes', unit: 'byterate', needs: 'wal',
    lines: w => [named('WAL', sum(pick(w, 'wal', 'wal_bytes')))]},
  {id: 'checkpoints', title: 'Checkpoints', unit: 'rate', needs: 'checkpointer',
    lines: w => [named('timed', sum(pick(w, 'checkpointer', 'num_timed'))),
      named('requested', sum(pick(w, 'checkpointer', 'num_requested')))]},
];

const COLOURS = ['#1f5fbf', '#b42318', '#1b7f3b', '#a15c00', '#6b3fa0', '#0f7c86', '#5b6575'];

/**
 * Fills `container` with the range toolbar (range.js: kept in the URL) and the charts of source
 * `name`; returns a stop function. A range within the window is live; a longer or absolute one is
 * read from/to (a relative one again every minute). Dragging across a chart zooms to that range.
 */
export function renderCharts(container, name) {
  const charts = new Map();
  const notice = el('p', {class: 'notice', role: 'status'});
  const grid = el('div', {class: 'charts', id: 'charts'});
  // What each metric's latest read was, so an empty chart says why it is empty.
  let reads = null;
  let shown = null;
  // The bounds the charts show, for the alert periods to read (again when they moved a minute).
  let periodBounds = null;
  const explain = () => {
    for (const chart of charts.values()) {
      const text = emptyText(chart.spec, shown?.series ?? [], reads);
      if (chart.empty.textContent !== text) chart.empty.textContent = text;
    }
  };
  const stopReads = live(`/api/v1/sources/${enc(name)}/reads`, answer => {
    reads = new Map(answer.reads.map(r => [r.metric, r]));
    explain();
  }, {wait: '30s', pause: 2000, onError: () => {}});
  const follow = followRange({prefix: 'chart', compare: true, notice,
    path: `/api/v1/sources/${enc(name)}/window`, extra: METRICS.map(m => `metric=${m}`).join('&'),
    draw: (answer, compare, span) => {
      for (const chart of charts.values()) {
        const metrics = chart.spec.needs.split(' or ');
        updateChart(chart, chart.spec.lines(answer.series), span.from / 1000, span.to / 1000, {
          series: answer.series.filter(s => metrics.includes(s.metric)), step: answer.step,
          errors: storeErrors(answer, metrics), compare: compare && {lines: chart.spec.lines(compare.answer.series),
            shift: compare.shift, words: compare.words, errors: storeErrors(compare.answer, metrics)}});
      }
      shown = answer; // the answer the empty charts explain (the span drawn is the parameter's)
      explain();
      if (!periodBounds || Math.abs(span.from - periodBounds.from) > 60000 || Math.abs(span.to - periodBounds.to) > 60000) {
        periodBounds = span;
        periods.refresh();
      }
    },
    failed: error => charts.forEach(chart => showFailure(chart, error))});
  fill(container, el('div', {class: 'heading'}, el('h2', {}, 'Health')), follow.controls, notice, grid);
  for (const spec of CHARTS) {
    const chart = chartFigure(spec, follow.zoom);
    grid.append(chart.figure);
    charts.set(spec.id, chart);
  }
  // The periods the source's alerts fired, shaded on the charts of their rule's metric.
  // A range up to now is read up to now: a resolution a moment ago is in it.
  const periodRange = () => {
    const shownNow = periodBounds ?? bounds(rangeFromUrl());
    return rangeFromUrl().from ? shownNow : {from: shownNow.from, to: Date.now()};
  };
  const periods = followAlertPeriods(name, periodRange, list => {
    for (const chart of charts.values()) {
      const metrics = chart.spec.needs.split(' or ');
      chart.periods = list.filter(period => periodApplies(period, metrics));
      chart.figure.dataset.alertPeriods = String(chart.periods.length);
      const said = chart.periods.map(p => `${p.rule} ${new Date(p.from).toLocaleTimeString()}–${
        p.to === null ? 'now' : new Date(p.to).toLocaleTimeString()}`).join(', ');
      if (chart.alerts.textContent !== (said ? `Alert periods (shaded): ${said}` : '')) {
        chart.alerts.textContent = said ? `Alert periods (shaded): ${said}` : '';
      }
      chart.uplot?.redraw(false, false);
    }
  });
  const stopResize = followResize([...charts.values()]);
  follow.start();
  return () => { follow.stop(); stopReads(); stopResize(); periods.stop(); };
}

/**
 * Reads `path?<range>&extra` for the range the URL holds and hands each answer to
 * `draw(answer, compare, bounds)` (compare: {answer, shift, words} when an overlay is chosen, read
 * once per range); `failed(error)` when the main request fails (its store down or slow: the rest of
 * the page goes on). Returns {controls, zoom(fromSec, toSec), start(), stop()}.
 */
export function followRange({prefix, compare, notice, path, extra = '', draw, failed}) {
  let range = rangeFromUrl();
  let windowSeconds = 3600;
  let stopLive = null;
  let timer = null;
  let generation = 0;
  const controls = rangeControls(range, {prefix, compare, onChange: next => { range = next; start(); }});
  const url = query => `${path}?${query}${extra ? `&${extra}` : ''}`;
  function start() {
    stop();
    const mine = ++generation;
    const shift = compareShift(range);
    let latest = null;
    let earlier = null;
    const redraw = () => latest && draw(latest, earlier, shownBounds(range, latest));
    const show = answer => {
      if (mine !== generation) return;
      notice.replaceChildren();
      latest = answer;
      windowSeconds = seconds(answer.windowSpan) ?? windowSeconds;
      redraw();
    };
    const fail = error => {
      if (mine !== generation) return;
      fill(notice, `${error.status === 404 ? 'No such source' : `Charts: ${error.message}`}`);
      failed?.(error);
    };
    if (shift) {
      const {query} = apiQuery(range, windowSeconds, shift);
      get(url(query)).then(({body}) => {
        if (mine !== generation) return;
        earlier = {answer: body, shift, words: compareWords(range.compare)};
        redraw();
      }).catch(error => {
        if (mine !== generation) return;
        earlier = {answer: {series: [], errors: [{message: `the span ${compareWords(range.compare)}: ${error.message}`}]},
          shift, words: compareWords(range.compare)};
        redraw();
      });
    }
    const {query, live: isLive} = apiQuery(range, windowSeconds);
    if (isLive) {
      stopLive = live(url(query), show, {wait: '30s', onError: fail});
    } else {
      const once = () => get(url(apiQuery(range, windowSeconds).query)).then(({body}) => show(body)).catch(fail);
      once();
      if (!range.from) timer = setInterval(once, 60000);
    }
  }
  function stop() {
    generation++;
    stopLive?.();
    stopLive = null;
    clearInterval(timer);
  }
  function zoom(fromSec, toSec) {
    range = {from: new Date(Math.round(fromSec) * 1000), to: new Date(Math.round(toSec) * 1000), compare: range.compare};
    rangeToUrl(range);
    controls.show(range);
    start();
  }
  return {controls: controls.element, zoom, start, stop};
}

/** The bounds a chart shows: an absolute range's own; a relative one's as the server answered it. */
function shownBounds(range, answer) {
  if (range.from) return bounds(range);
  const from = Date.parse(answer.from);
  const to = Date.parse(answer.to);
  return Number.isNaN(from) || Number.isNaN(to) ? bounds(range) : {from, to};
}

/**
 * A chart's figure for updateChart: `spec` has id, title, unit (rate, count, percent, bytes,
 * byterate, millis) and needs (what to collect when it has no data). `zoom(fromSec, toSec)`, when
 * given, is called with the range a drag across the chart selected.
 */
export function chartFigure(spec, zoom) {
  const plot = el('div', {class: 'plot'});
  const empty = el('p', {class: 'empty', hidden: true},
      spec.empty ?? `Not collected: this source's metrics need ${spec.needs}.`);
  const origin = el('span', {class: 'chart-origin'});
  const failure = el('p', {class: 'chart-error', role: 'alert', hidden: true});
  const alerts = el('p', {class: 'chart-alerts'});
  const figure = el('figure', {class: 'chart', 'data-chart': spec.id, 'data-points': '0', 'data-compare-points': '0'},
      el('figcaption', {}, spec.title, ' ', origin), failure, plot, empty, alerts);
  return {spec, figure, plot, empty, origin, failure, alerts, zoom, uplot: null, key: '', periods: []};
}

/**
 * Gives the chart its lines for the span from..to (epoch seconds): built once, then only new data.
 * `about` may hold the series behind the lines with the answer's step (the caption says which store
 * answered and at what resolution), store errors (shown on the chart, with the store's name) and a
 * compare overlay {lines, shift (ms), words, errors}: the same span earlier, drawn dashed over it.
 */
export function updateChart(chart, allLines, from, to, about = {}) {
  const lines = allLines.map(line => within(line, from, to)).filter(line => line.times.length > 0);
  const earlier = about.compare ? about.compare.lines.map(line => within({
    label: `${line.label} (${about.compare.words})`, times: line.times.map(t => t + about.compare.shift),
    values: line.values, dashed: true}, from, to)).filter(line => line.times.length > 0) : [];
  const errors = [...(about.errors ?? []), ...(about.compare?.errors ?? [])];
  chart.failure.hidden = errors.length === 0;
  // The store's name and the start of what it said; the whole text in the tooltip.
  const said = errors.map(e => `${e.store}: ${e.message}`).join('; ');
  chart.failure.textContent = said.length > 240 ? `${said.slice(0, 239)}…` : said;
  chart.failure.title = said;
  chart.figure.dataset.error = errors.map(e => e.store).join(' ');
  if (about.series) {
    const origin = provenance(about.series.filter(s => !s.error), about.step);
    chart.origin.textContent = lines.length ? `(${origin.text})` : '';
    chart.figure.dataset.store = origin.stores.join(' ');
  }
  chart.empty.hidden = lines.length > 0 || errors.length > 0;
  chart.plot.hidden = lines.length === 0;
  chart.figure.dataset.points = String(lines.reduce((n, line) => n + line.times.length, 0));
  chart.figure.dataset.comparePoints = String(earlier.reduce((n, line) => n + line.times.length, 0));
  chart.figure.dataset.from = String(Math.round(from));
  chart.figure.dataset.to = String(Math.round(to));
  chart.figure.dataset.last = lines.length ? String(lines[0].values[lines[0].values.length - 1]) : '';
  if (lines.length === 0) return;
  const drawn = [...lines, ...earlier];
  const data = aligned(drawn);
  const key = drawn.map(line => line.label).join('\n');
  if (!chart.uplot || chart.key !== key) {
    chart.uplot?.destroy();
    chart.key = key;
    chart.uplot = new globalThis.uPlot(optionsOf(chart, drawn, lines.length), data, chart.plot);
  } else {
    chart.uplot.setData(data, false);
  }
  chart.uplot.setScale('x', {min: from, max: to});
  // Without the pointer on the chart, the legend shows the newest values.
  chart.uplot.setLegend({idx: data[0].length - 1});
}

/** The line's points from..to (epoch seconds; its times are milliseconds): a store may answer a wider span. */
function within(line, from, to) {
  const kept = line.times.map((t, i) => i).filter(i => line.times[i] >= from * 1000 && line.times[i] <= to * 1000);
  return kept.length === line.times.length ? line
    : {...line, times: kept.map(i => line.times[i]), values: kept.map(i => line.values[i])};
}

/** Shows a failed request on the chart (the store's name when the problem gives one); its last picture stays. */
export function showFailure(chart, error) {
  const store = error.problem?.store || error.problem?.errors?.find(e => e.store)?.store;
  chart.failure.hidden = false;
  chart.failure.textContent = `${store ? `${store}: ` : ''}${error.message}`;
  chart.failure.title = chart.failure.textContent;
  chart.figure.dataset.error = store || 'request';
  chart.empty.hidden = true;
}

/** Keeps every chart's width to its cell; returns a stop function. */
export function followResize(charts) {
  const resize = () => charts.forEach(chart => chart.uplot?.setSize(sizeOf(chart.plot)));
  window.addEventListener('resize', resize);
  return () => { window.removeEventListener('resize', resize); charts.forEach(chart => chart.uplot?.destroy()); };
}

function optionsOf(chart, lines, current) {
  const format = FORMATS[chart.spec.unit];
  return {
    ...sizeOf(chart.plot),
    scales: {x: {time: true}, y: {range: (u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1]}},
    // The value axis is as wide as its longest label ("997.7 KiB/s" is not cut to "?7.7 KiB/s") and
    // says its unit, so seconds and transaction IDs never share an unlabelled axis.
    axes: [{}, {values: (u, ticks) => ticks.map(format), size: axisWidth, label: AXIS_LABELS[chart.spec.unit],
      labelSize: 18}],
    // The compare overlay's lines (after the `current` ones) take their line's colour, dashed.
    series: [{}, ...lines.map((line, i) => ({label: line.label, stroke: COLOURS[(i % current) % COLOURS.length],
      width: line.dashed ? 1 : 1.5, dash: line.dashed ? [5, 4] : undefined, spanGaps: true,
      value: (u, v) => v === null || v === undefined ? '–' : format(v)}))],
    legend: {live: true},
    // A legend set before the chart is laid out is lost: show the newest values once it is ready.
    // A drag across the chart selects a range to zoom to (the page's range, in the URL).
    hooks: {ready: [u => u.setLegend({idx: u.data[0].length - 1})],
      // Alert periods (alertperiods.js) under the lines.
      drawClear: [u => shadePeriods(u, chart.periods)],
      setSelect: [u => {
        if (!chart.zoom || u.select.width < 4) return;
        const from = u.posToVal(u.select.left, 'x');
        const to = u.posToVal(u.select.left + u.select.width, 'x');
        u.setSelect({left: 0, width: 0, top: 0, height: 0}, false);
        chart.zoom(from, to);
      }]},
    cursor: {drag: {x: Boolean(chart.zoom), y: false, setScale: false}},
  };
}

function sizeOf(plot) {
  return {width: Math.max(260, plot.parentElement.clientWidth - 16), height: 170};
}

/** uPlot's columnar data: the union of the lines' times (seconds), each line null where it has no point. */
function aligned(lines) {
  const times = [...new Set(lines.flatMap(line => line.times))].sort((a, b) => a - b);
  const at = new Map(times.map((t, i) => [t, i]));
  const columns = lines.map(line => {
    const values = new Array(times.length).fill(null);
    line.times.forEach((t, i) => { values[at.get(t)] = line.values[i]; });
    return values;
  });
  return [times.map(t => t / 1000), ...columns];
}

function pick(series, metric, column) {
  return series.filter(s => s.metric === metric && s.column === column);
}

/** One line from several series of a column (rows of several tags): their values added per time. */
function sum(series) {
  if (series.length === 1) return series[0];
  const totals = new Map();
  for (const s of series) s.times.forEach((t, i) => totals.set(t, (totals.get(t) ?? 0) + s.values[i]));
  const times = [...totals.keys()].sort((a, b) => a - b);
  return {times, values: times.map(t => totals.get(t))};
}

/** hit / (hit + read) in percent, per time both have; no point where nothing was read. */
function ratio(hit, read) {
  const reads = new Map(read.times.map((t, i) => [t, read.values[i]]));
  const times = [];
  const values = [];
  hit.times.forEach((t, i) => {
    const total = hit.values[i] + (reads.get(t) ?? NaN);
    if (total > 0) { times.push(t); values.push(100 * hit.values[i] / total); }
  });
  return {times, values};
}

function named(label, line) {
  return {label, times: line?.times ?? [], values: line?.values ?? []};
}

const measurer = document.createElement('canvas').getContext('2d');

/**
 * The width in CSS pixels the value axis needs for its labels, measured in the axis's own font (uPlot
 * keeps it as [font at the device pixel ratio, its size, ...]): a guess per character clips wide
 * glyphs and fonts. 18 px: uPlot's 10 px ticks, 5 px gap and a little air.
 */
export function axisWidth(u, values, axisIdx) {
  const font = u.axes[axisIdx].font;
  measurer.font = Array.isArray(font) ? font[0] : font;
  const longest = (values ?? []).reduce((most, v) => Math.max(most, measurer.measureText(String(v ?? '')).width), 0);
  return Math.max(40, Math.ceil(longest / (Array.isArray(font) ? u.pxRatio : 1)) + 18);
}

const AXIS_LABELS = {rate: 'per second', count: 'count', percent: 'percent', bytes: 'bytes', byterate: 'bytes per second',
  millis: 'time', seconds: 'seconds', xids: 'transaction IDs'};

const UNITS = ['', ' K', ' M', ' G', ' T'];

function scaled(value, base, units) {
  let i = 0;
  let v = Math.abs(value);
  while (v >= base && i < units.length - 1) { v /= base; i++; }
  const shown = v >= 100 || Number.isInteger(v) ? Math.round(v) : v.toFixed(v >= 10 ? 1 : 2);
  return `${value < 0 ? '-' : ''}${shown}${units[i]}`;
}

export const formatBytes = value => value === null || value === undefined ? ''
  : scaled(value, 1024, [' B', ' KiB', ' MiB', ' GiB', ' TiB']);
export const formatCount = value => value === null || value === undefined ? '' : scaled(value, 1000, UNITS);

const FORMATS = {
  millis: v => v >= 1000 ? `${(v / 1000).toFixed(v >= 10000 ? 0 : 1)} s` : `${(+v).toFixed(v >= 10 ? 0 : 2)} ms`,
  rate: v => `${formatCount(v)}/s`,
  count: formatCount,
  xids: formatCount,
  seconds: v => `${formatCount(v)} s`,
  percent: v => `${(+v).toFixed(v >= 99 ? 2 : 1)} %`,
  bytes: formatBytes,
  byterate: v => `${formatBytes(v)}/s`,
};

export const formatMillis = FORMATS.millis;
