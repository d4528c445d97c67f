// The queries view of a source (top statements over a span, from GET /api/v1/sources/{name}/queries)
// and one statement's page (its charts, text, recent samples and plans, from .../queries/{queryid}). Query
// texts come from the monitored database and are shown as text, never as markup.
import {el, fill, heading, place, keptRows} from './dom.js';
import {enc} from './api.js';
import {storeErrors} from './range.js';
import {chartFigure, updateChart, followResize, followRange, showFailure, formatCount, formatMillis} from './charts.js';
import {planSection, actualPlanSection} from './plans.js';
import {statementLogSection} from './statement-log.js';
import {sourceTabs} from './views.js';

const COLUMNS = [
  ['totalExecTime', 'Total time', formatMillis], ['calls', 'Calls', formatCount],
  ['meanExecTime', 'Mean time', formatMillis], ['rows', 'Rows', formatCount],
  ['sharedBlksRead', 'Shared blocks read', formatCount],
];
const NO_DATA = 'No statement statistics yet: collect query_stats (preset query_insights or standard and up) with '
  + 'pg_stat_statements installed in the database; the first read is the baseline.';

export function renderQueries(view, name) {
  const state = {statements: [], sort: 'totalExecTime', dbname: ''};
  const dbSelect = el('select', {id: 'queries-db', 'aria-label': 'Database', onchange: () => { state.dbname = dbSelect.value; arrange(); }});
  const notice = el('p', {class: 'notice', role: 'status'});
  const headRow = el('tr', {}, el('th', {scope: 'col'}, 'Statement'), el('th', {scope: 'col'}, 'Database'),
      el('th', {scope: 'col'}, 'User'), COLUMNS.map(([key, label]) => el('th', {scope: 'col', 'data-key': key,
        'aria-sort': key === state.sort ? 'descending' : 'none', class: 'number'},
      el('button', {type: 'button', class: 'sort', onclick: () => sortBy(key)}, label))));
  const body = el('tbody', {id: 'statements'});
  const empty = el('p', {class: 'empty', hidden: true}, NO_DATA);
  const origin = el('p', {class: 'chart-origin', id: 'queries-origin'});
  const follow = followRange({prefix: 'queries', compare: false, notice, path: `/api/v1/sources/${enc(name)}/queries`,
    draw: render, failed: () => {}});
  fill(view, heading(`Queries of ${name}`, el('a', {class: 'button', href: `#/sources/${enc(name)}`}, 'Source')),
      sourceTabs(name, 'queries'), el('div', {class: 'toolbar'}, follow.controls, dbSelect), notice, origin,
      el('div', {class: 'table-wrap'}, el('table', {class: 'cards statements'}, el('thead', {}, headRow), body)), empty);

  function sortBy(key) {
    state.sort = key;
    headRow.querySelectorAll('th[data-key]').forEach(th => th.setAttribute('aria-sort',
        th.dataset.key === key ? 'descending' : 'none'));
    arrange();
  }

  function render(answer) {
    // Which store summed these (window, snapshot, postgres, ...), or why it could not.
    const errors = storeErrors(answer).map(e => `${e.store}: ${e.message}`);
    origin.textContent = errors.length ? errors.join('; ') : `From ${answer.store ?? 'window'}.`;
    origin.dataset.store = answer.store ?? 'window';
    origin.classList.toggle('error-text', errors.length > 0);
    state.statements = answer.statements;
    const databases = [...new Set(answer.statements.map(s => s.dbname))].sort();
    const options = ['', ...databases];
    if (dbSelect.options.length !== options.length || options.some((db, i) => dbSelect.options[i].value !== db)) {
      fill(dbSelect, options.map(db => el('option', {value: db, selected: db === state.dbname}, db || 'all databases')));
    }
    arrange();
  }

  function arrange() {
    const shown = state.statements.filter(s => !state.dbname || s.dbname === state.dbname)
      .sort((a, b) => (b[state.sort] ?? -1) - (a[state.sort] ?? -1));
    place(body, rowsFor(shown));
    empty.hidden = state.statements.length > 0;
  }

  // A changed row is updated in place, so a focused link in it keeps the focus.
  const rowsFor = keptRows(s => `${s.queryid}\u0000${s.dbname}\u0000${s.user}\u0000${s.toplevel}`, rowOf);

  function rowOf(s) {
    const text = s.queryid === 'other' ? '(every other statement, summed)' : s.text ?? `query id ${s.queryid} (text not read yet)`;
    return el('tr', {'data-queryid': s.queryid, 'data-dbname': s.dbname},
        el('td', {'data-label': 'Statement', class: 'statement'}, s.queryid === 'other' ? el('span', {}, text)
          : el('a', {href: statementHref(s)}, el('code', {}, shorten(text))),
        s.planChangedAt ? [' ', el('a', {class: 'plan-changed', href: statementHref(s),
          title: `Its plan in ${s.dbname} changed at ${new Date(s.planChangedAt).toLocaleString()}; see the statement's plans`},
        'plan changed')] : null,
        s.runningSessions > 0 ? [' ', el('span', {class: 'running-now', role: 'status',
          title: `${s.runningSessions} session(s) ran it at the latest sampling`},
        s.runningSessions > 1 ? `running \u00d7${s.runningSessions}` : 'running')] : null),
        el('td', {'data-label': 'Database'}, s.dbname), el('td', {'data-label': 'User'}, s.user),
        COLUMNS.map(([column, label, format]) => el('td', {'data-label': label, class: `number col-${column}`},
            s[column] === null || s[column] === undefined ? '' : format(s[column]))));
  }

  function statementHref(s) {
    return `#/sources/${enc(name)}/queries/${enc(s.queryid)}`;
  }

  follow.start();
  return () => follow.stop();
}

/** One line of at most 200 characters: a statement's start. */
function shorten(text) {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** query_stats rows are deltas per collection interval, and only for intervals in which the statement ran. */
const NO_CALLS = 'No call in the span.';
const STATEMENT_CHARTS = [
  {id: 'calls', title: 'Calls per interval', unit: 'count', empty: NO_CALLS,
    lines: series => [{label: 'calls', ...sum(series, 'calls')}]},
  {id: 'mean', title: 'Mean execution time', unit: 'millis', empty: NO_CALLS,
    lines: series => [{label: 'mean', ...divide(sum(series, 'total_exec_time'), sum(series, 'calls'))}]},
  {id: 'rows', title: 'Rows per interval', unit: 'count', empty: NO_CALLS,
    lines: series => [{label: 'rows', ...sum(series, 'rows')}]},
  {id: 'reads', title: 'Shared blocks read per interval', unit: 'count', empty: NO_CALLS,
    lines: series => [{label: 'blocks read', ...sum(series, 'shared_blks_read')}]},
];

export function renderStatement(view, name, queryid) {
  const notice = el('p', {class: 'notice', role: 'status'});
  const text = el('pre', {class: 'sql', id: 'statement-text'});
  const follow = followRange({prefix: 'statement', compare: true, notice,
    path: `/api/v1/sources/${enc(name)}/queries/${enc(queryid)}`, draw: render,
    failed: error => charts.forEach(chart => showFailure(chart, error))});
  const charts = STATEMENT_CHARTS.map(spec => chartFigure(spec, follow.zoom));
  const samples = el('tbody', {id: 'statement-samples'});
  const noSamples = el('p', {class: 'empty', hidden: true},
      'No session ran it at a sample within the span (query_samples samples the sessions that are not idle).');
  const plans = planSection();
  const actualPlans = actualPlanSection(name, queryid);
  const logged = statementLogSection(name, queryid);
  fill(view, heading(`Statement ${queryid}`, el('a', {class: 'button', href: `#/sources/${enc(name)}/queries`}, 'Queries'),
      el('a', {class: 'button', href: `#/sources/${enc(name)}`}, 'Source')),
  follow.controls, notice,
  el('section', {}, el('h2', {}, 'Text'), text),
  el('section', {}, el('h2', {}, 'History'), el('div', {class: 'charts'}, charts.map(c => c.figure))),
  el('section', {}, el('h2', {}, 'Recent samples'), el('div', {class: 'table-wrap'}, el('table', {class: 'cards'},
      el('thead', {}, el('tr', {}, ['Time', 'PID', 'Database', 'State', 'Wait event', 'Running for', 'Blocked by',
        'Application', 'User'].map(h => el('th', {scope: 'col'}, h)))), samples)), noSamples),
  plans.section, actualPlans.section, logged.section);

  // Samples are kept as rows across live updates (a new one is added above), never rebuilt.
  const sampleRows = keptRows(s => `${s.time}\u0000${s.pid}\u0000${s.dbname}`, s => el('tr', {'data-pid': s.pid},
      el('td', {'data-label': 'Time'}, el('time', {datetime: s.time}, new Date(s.time).toLocaleTimeString())),
      el('td', {'data-label': 'PID'}, s.pid), el('td', {'data-label': 'Database'}, s.dbname),
      el('td', {'data-label': 'State'}, s.state),
      el('td', {'data-label': 'Wait event', class: 'wait-event'}, s.waitEventType ? `${s.waitEventType}: ${s.waitEvent}` : ''),
      el('td', {'data-label': 'Running for'}, s.durationSeconds === null ? '' : formatMillis(s.durationSeconds * 1000)),
      el('td', {'data-label': 'Blocked by'}, s.blockingPids), el('td', {'data-label': 'Application'}, s.applicationName),
      el('td', {'data-label': 'User'}, s.userName)));

  function render(answer, compare, shownRange) {
    const shown = answer.text ?? (queryid === 'other' ? '(every statement outside the top N, summed)'
      : 'The text has not been read yet (query_texts reads each new statement\'s text, at most every few minutes).');
    if (text.textContent !== shown) text.textContent = shown;
    const mine = answer.series.filter(s => s.error || s.tags?.queryid === undefined || s.tags.queryid === queryid);
    const earlier = compare ? compare.answer.series : [];
    charts.forEach(chart => updateChart(chart, chart.spec.lines(mine.filter(s => !s.error)), shownRange.from / 1000,
        shownRange.to / 1000, {series: mine, step: answer.step, errors: storeErrors(answer),
          compare: compare && {lines: chart.spec.lines(earlier.filter(s => !s.error)), shift: compare.shift,
            words: compare.words, errors: storeErrors(compare.answer)}}));
    place(samples, sampleRows(answer.samples ?? []));
    noSamples.hidden = (answer.samples ?? []).length > 0;
    plans.show(answer.plans ?? []);
  }

  const stopResize = followResize(charts);
  follow.start();
  return () => { follow.stop(); stopResize(); actualPlans.stop(); logged.stop(); };
}

/** The series of one column (several users or top-level flags) added per time. */
function sum(series, column) {
  const totals = new Map();
  for (const s of series.filter(s => s.column === column)) {
    s.times.forEach((t, i) => totals.set(t, (totals.get(t) ?? 0) + s.values[i]));
  }
  const times = [...totals.keys()].sort((a, b) => a - b);
  return {times, values: times.map(t => totals.get(t))};
}

function divide(numerator, denominator) {
  const below = new Map(denominator.times.map((t, i) => [t, denominator.values[i]]));
  const times = [];
  const values = [];
  numerator.times.forEach((t, i) => {
    if (below.get(t) > 0) { times.push(t); values.push(numerator.values[i] / below.get(t)); }
  });
  return {times, values};
}
