// A source's health charts from the recent window (GET /api/v1/sources/{name}/window), drawn by
// uPlot (the WebJar loaded by index.html as the global uPlot) and kept live by the window's
// blocking query. A chart is built once and then only given new data, so a live update never
// rebuilds what did not change; it is rebuilt only when its set of lines changes (a new standby).
import {el, fill} from './dom.js';
import {live, enc} from './api.js';
import {emptyText} from './chartstates.js';

/** The metrics the charts read (query statistics have their own view). */
const METRICS = ['db_stats', 'db_size', 'backends', 'connections', 'locks', 'replication', 'wal_receiver',
  'xmin_horizon', 'temp_files', 'wal', 'checkpointer'];

const SPANS = [['5m', 300], ['15m', 900], ['30m', 1800], ['1h', 3600], ['3h', 10800], ['6h', 21600],
  ['12h', 43200], ['24h', 86400]];

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
 * Fills `container` with the span selector and the charts of source `name`, live; returns a stop
 * function.
 */
export function renderCharts(container, name) {
  const charts = new Map();
  const spanSelect = el('select', {id: 'chart-span', 'aria-label': 'Chart span'});
  const notice = el('p', {class: 'notice', role: 'status'});
  const grid = el('div', {class: 'charts', id: 'charts'});
  fill(container, el('div', {class: 'heading'}, el('h2', {}, 'Health'), el('label', {class: 'inline'}, 'last ', spanSelect)),
      notice, grid);
  for (const spec of CHARTS) {
    const chart = chartFigure(spec);
    grid.append(chart.figure);
    charts.set(spec.id, chart);
  }
  let span = '15m';
  let spansShown = false;
  let stopLive = null;
  // What each metric's latest read was, so an empty chart says why it is empty.
  let reads = null;
  let shown = null;
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
  const start = () => {
    stopLive?.();
    const query = METRICS.map(m => `metric=${m}`).join('&');
    stopLive = live(`/api/v1/sources/${enc(name)}/window?span=${span}&${query}`, answer => {
      notice.replaceChildren();
      if (!spansShown) {
        showSpans(spanSelect, answer.windowSpan, span);
        spansShown = true;
      }
      draw(charts, answer);
      shown = answer;
      explain();
    }, {wait: '30s', onError: error => fill(notice, `Charts: ${error.message}`)});
  };
  spanSelect.addEventListener('change', () => { span = spanSelect.value; start(); });
  const stopResize = followResize([...charts.values()]);
  start();
  return () => { stopLive?.(); stopReads(); stopResize(); };
}

/** Fills a span selector with the spans up to the window's (an ISO-8601 duration such as PT1H). */
export function showSpans(select, windowSpan, chosen) {
  const most = isoSeconds(windowSpan);
  fill(select, SPANS.filter(([, seconds]) => seconds <= most)
      .map(([label]) => el('option', {value: label, selected: label === chosen}, label)));
}

function isoSeconds(duration) {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$/.exec(duration || '');
  return m ? (+(m[1] || 0)) * 3600 + (+(m[2] || 0)) * 60 + (+(m[3] || 0)) : 3600;
}

function draw(charts, answer) {
  const from = Date.parse(answer.from) / 1000;
  const to = Date.parse(answer.to) / 1000;
  for (const chart of charts.values()) {
    updateChart(chart, chart.spec.lines(answer.series), from, to);
  }
}

/**
 * A chart's figure for updateChart: `spec` has id, title, unit (rate, count, percent, bytes,
 * byterate, millis) and needs (what to collect when it has no data).
 */
export function chartFigure(spec) {
  const plot = el('div', {class: 'plot'});
  const empty = el('p', {class: 'empty', hidden: true},
      spec.empty ?? `Not collected: this source's metrics need ${spec.needs}.`);
  const figure = el('figure', {class: 'chart', 'data-chart': spec.id, 'data-points': '0'},
      el('figcaption', {}, spec.title), plot, empty);
  return {spec, figure, plot, empty, uplot: null, key: ''};
}

/** Gives the chart its lines for the span from..to (epoch seconds): built once, then only new data. */
export function updateChart(chart, allLines, from, to) {
  const lines = allLines.filter(line => line.times.length > 0);
  chart.empty.hidden = lines.length > 0;
  chart.plot.hidden = lines.length === 0;
  chart.figure.dataset.points = String(lines.reduce((n, line) => n + line.times.length, 0));
  chart.figure.dataset.last = lines.length ? String(lines[0].values[lines[0].values.length - 1]) : '';
  if (lines.length === 0) return;
  const data = aligned(lines);
  const key = lines.map(line => line.label).join('\n');
  if (!chart.uplot || chart.key !== key) {
    chart.uplot?.destroy();
    chart.key = key;
    chart.uplot = new globalThis.uPlot(optionsOf(chart, lines), data, chart.plot);
  } else {
    chart.uplot.setData(data, false);
  }
  chart.uplot.setScale('x', {min: from, max: to});
  // Without the pointer on the chart, the legend shows the newest values.
  chart.uplot.setLegend({idx: data[0].length - 1});
}

/** Keeps every chart's width to its cell; returns a stop function. */
export function followResize(charts) {
  const resize = () => charts.forEach(chart => chart.uplot?.setSize(sizeOf(chart.plot)));
  window.addEventListener('resize', resize);
  return () => { window.removeEventListener('resize', resize); charts.forEach(chart => chart.uplot?.destroy()); };
}

function optionsOf(chart, lines) {
  const format = FORMATS[chart.spec.unit];
  return {
    ...sizeOf(chart.plot),
    scales: {x: {time: true}, y: {range: (u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1]}},
    // The value axis is as wide as its longest label ("997.7 KiB/s" is not cut to "?7.7 KiB/s") and
    // says its unit, so seconds and transaction IDs never share an unlabelled axis.
    axes: [{}, {values: (u, ticks) => ticks.map(format), size: axisWidth, label: AXIS_LABELS[chart.spec.unit],
      labelSize: 18}],
    series: [{}, ...lines.map((line, i) => ({label: line.label, stroke: COLOURS[i % COLOURS.length], width: 1.5,
      spanGaps: true, value: (u, v) => v === null || v === undefined ? '–' : format(v)}))],
    legend: {live: true},
    // A legend set before the chart is laid out is lost: show the newest values once it is ready.
    hooks: {ready: [u => u.setLegend({idx: u.data[0].length - 1})]},
    cursor: {drag: {x: false, y: false}},
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

/** The width in pixels the value axis needs for its labels (uPlot's default font, 12 px). */
function axisWidth(u, values) {
  const longest = (values ?? []).reduce((most, v) => Math.max(most, String(v ?? '').length), 0);
  return Math.max(40, Math.ceil(longest * 7.2) + 18);
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
