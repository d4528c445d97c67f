// Fleet overview: every source's live state from one blocking query on GET /api/v1/status, as changes
// after the first whole picture (fleet.js).
// Rows are keyed by source name and updated in place only where their entry changed (morph), so a
// fleet of a thousand sources stays smooth while it updates and a focused link or checkbox stays focused.
import {el, fill, formatDuration, heading, timeCell, seconds, keepAgesCurrent, morph, place} from './dom.js';
import {live, get, put, enc, isStale} from './api.js';
import {followFleet} from './fleet.js';
import {sourcesUsing} from './usage.js';
import {WORDS, glossary} from './glossary.js';
import {formatBytes, formatCount} from './charts.js';
import {followAlerts, firingCounts, countBadges, severityRank} from './alertfeed.js';
import {rangeControls, rangeFromUrl, apiQuery, DEFAULT_LAST} from './range.js';

const PAGE = 250;
export const STATES = ['starting', 'connected', 'disconnected', 'refused', 'stalled', 'failed', 'disabled', 'configured'];
/** The key numbers from the recent window (GET /api/v1/window), with how each shows. */
const NUMBERS = {tps: v => `${formatCount(v)}/s`, connections: formatCount, sizeBytes: formatBytes, lagBytes: formatBytes};
/** What a key number means over a chosen range (docs/history.md); without one they are the latest reads. */
const OVER_RANGE = {tps: 'TPS (mean)', connections: 'Conns (mean)', sizeBytes: 'Size (last)', lagBytes: 'Lag (max)'};
/** The recent window's default span: a relative range up to it is read live from memory. */
const WINDOW_SECONDS = 3600;
const COLUMNS = [
  ['name', 'Source'], ['kind', 'Kind'], ['group', 'Group'], ['state', 'State'], ['alerts', 'Alerts'],
  ['tps', 'TPS'], ['connections', 'Conns'], ['sizeBytes', 'Size'], ['lagBytes', 'Lag'], ['lastTickStart', 'Last tick'],
  ['lastTickDuration', 'Tick'], ['soloMetrics', 'Solo lane'], ['lastError', 'Last error'], ['owner', 'Owner'],
  ['enabled', 'Enabled'],
];

export function renderOverview(view, query) {
  // A page of rows at a time: the browser lays out 250 rows in a fraction of the time of 1,000
  // (ConsoleRenderBenchmarkTest); counts, filter and sort always cover the whole fleet.
  const state = {entries: [], rows: new Map(), numbers: new Map(), alerts: new Map(), sort: 'name', descending: false, text: '', only: '',
    limit: PAGE};
  const counts = el('div', {class: 'counts', id: 'state-counts', role: 'group', 'aria-label': 'Sources per state'});
  const search = el('input', {type: 'search', id: 'filter', placeholder: 'Filter by name, group, kind or error',
    'aria-label': 'Filter sources', oninput: () => { state.text = search.value.toLowerCase(); arrange(); }});
  const stateFilter = el('select', {id: 'state-filter', 'aria-label': 'Show state',
    onchange: () => { state.only = stateFilter.value; arrange(); }},
  el('option', {value: ''}, 'all states'), STATES.map(s => el('option', {value: s}, s)));
  const hints = {alerts: 'Firing alerts by severity (sorts the most critical first)', lastTickStart: WORDS.tick[1], lastTickDuration: WORDS.tick[1], soloMetrics: WORDS.solo[1]};
  const headRow = el('tr', {}, COLUMNS.map(([key, label]) => el('th', {scope: 'col', 'data-key': key},
      el('button', {type: 'button', class: 'sort', title: hints[key], onclick: () => sortBy(key)}, label))));
  const body = el('tbody', {id: 'fleet'});
  const empty = el('p', {class: 'empty', id: 'fleet-empty', hidden: true});
  const moreText = el('span');
  const more = el('p', {class: 'more', hidden: true}, moreText,
      el('button', {type: 'button', id: 'show-more', onclick: () => { state.limit += PAGE; arrange(); }}, `show ${PAGE} more`),
      ' ', el('button', {type: 'button', id: 'show-all', onclick: () => { state.limit = Infinity; arrange(); }}, 'show all'));
  const notice = el('p', {class: 'notice', role: 'status'});
  const table = el('table', {class: 'fleet cards'}, el('thead', {}, headRow), body);
  // #/?using=metric:NAME (or preset:NAME), linked from the metric and preset pages: only the sources using it.
  const using = new URLSearchParams(query || '').get('using');
  const usingFilter = el('p', {id: 'using-filter', class: 'notice', hidden: !using});
  // The key numbers' range (#/?last=7d or #/?from=…&to=…); the default is the latest reads, live.
  const numbersControls = rangeControls(rangeFromUrl(), {prefix: 'fleet', onChange: range => followNumbers(chosen(range))});
  fill(view, heading('Fleet', el('a', {href: '#/sources/new', class: 'button'}, 'Add source')), counts, usingFilter,
      el('div', {class: 'toolbar'}, search, stateFilter), numbersControls.element, notice, el('div', {class: 'table-wrap'}, table), empty, more,
      glossary());
  if (using) {
    state.names = new Set();
    Promise.all([get('/api/v1/sources'), get('/api/v1/presets')]).then(([{body: sources}, {body: presets}]) => {
      state.names = sourcesUsing(using, sources, presets) ?? new Set();
      fill(usingFilter, `Only the ${state.names.size} sources using ${using.replace(':', ' ')}. `,
          el('a', {href: '#/'}, 'Show all sources'));
      arrange();
    }).catch(error => fill(usingFilter, error.message));
  }

  function sortBy(key) {
    // Key numbers sort busiest (largest) first: the database to look at is one click away.
    state.descending = state.sort === key ? !state.descending : key in NUMBERS || key === 'alerts';
    state.sort = key;
    headRow.querySelectorAll('th').forEach(th => th.setAttribute('aria-sort',
        th.dataset.key === key ? (state.descending ? 'descending' : 'ascending') : 'none'));
    arrange();
  }

  function render(fleet) {
    const started = performance.now();
    notice.replaceChildren();
    state.entries = fleet.sources;
    // The owner column only matters when several instances share the fleet.
    table.classList.toggle('single-instance', !fleet.sources.some(entry => entry.owner));
    // Rows are built when first shown (arrange), updated when their entry changed, forgotten with their source.
    const current = new Set(fleet.sources.map(entry => entry.name));
    for (const name of state.rows.keys()) {
      if (!current.has(name)) state.rows.delete(name);
    }
    fill(counts, STATES.filter(s => fleet.counts[s]).map(s => el('button', {type: 'button',
      class: `count state-${s}`, 'data-state': s, 'aria-pressed': String(state.only === s),
      onclick: () => { state.only = state.only === s ? '' : s; stateFilter.value = state.only; arrange(); }},
    el('strong', {}, fleet.counts[s]), ` ${s}`)));
    arrange();
    // Read by the render benchmark (ConsoleRenderBenchmarkTest): one measure per answer rendered.
    performance.measure('overview-render', {start: started, end: performance.now()});
  }

  function arrange() {
    const visible = state.entries.filter(entry => (!state.names || state.names.has(entry.name))
        && (!state.only || entry.state === state.only)
        && (!state.text || [entry.name, entry.group, entry.kind, entry.lastError, entry.owner]
          .some(value => value && value.toLowerCase().includes(state.text))));
    const value = entry => state.sort === 'lastTickDuration' ? seconds(entry.lastTickDuration) ?? -1
      : state.sort === 'soloMetrics' ? entry.soloMetrics.length
      : state.sort === 'alerts' ? severityRank(state.alerts.get(entry.name) ?? {})
      : state.sort in NUMBERS ? state.numbers.get(entry.name)?.[state.sort] ?? -1 : entry[state.sort] ?? '';
    visible.sort((a, b) => {
      const [x, y] = [value(a), value(b)];
      const order = x < y ? -1 : x > y ? 1 : a.name < b.name ? -1 : 1;
      return state.descending ? -order : order;
    });
    const shown = visible.slice(0, state.limit);
    place(body, shown.map(rowFor));
    showNumbers();
    showAlerts();
    empty.hidden = visible.length > 0;
    // A fleet with no source at all is not a filter that matches nothing: say how to add one.
    if (state.entries.length === 0) {
      fill(empty, 'No source yet. ', el('a', {href: '#/sources/new', id: 'add-first-source'}, 'Add a source'),
          ' (a PostgreSQL server, pgbouncer or pgpool with its connection string), or ',
          el('a', {href: '#/import'}, 'import pgwatch\'s sources.yaml'), ', or POST /api/v1/sources.');
    } else if (empty.textContent !== 'No source matches.') {
      fill(empty, 'No source matches.');
    }
    more.hidden = shown.length === visible.length;
    fill(moreText, `Showing ${shown.length} of ${visible.length} sources; filter, sort or `);
    counts.querySelectorAll('button').forEach(b => b.setAttribute('aria-pressed', String(b.dataset.state === state.only)));
  }

  function rowFor(entry) {
    const key = JSON.stringify(entry);
    let known = state.rows.get(entry.name);
    if (!known) {
      known = {key, row: rowOf(entry)};
      state.rows.set(entry.name, known);
    } else if (known.key !== key) {
      morph(known.row, rowOf(entry));
      known.key = key;
    }
    return known.row;
  }

  function rowOf(entry) {
    // The data- attributes make a changed toggle a new node (morph keeps a control only when equal).
    const toggle = el('input', {type: 'checkbox', class: 'toggle', checked: entry.enabled,
      'data-enabled': String(entry.enabled), 'data-modify-index': entry.modifyIndex,
      'aria-label': `Collect ${entry.name}`, onchange: () => setEnabled(entry.name, toggle, notice, entry.modifyIndex)});
    const cell = (key, ...content) => el('td', {class: `col-${key}`, 'data-label': COLUMNS.find(c => c[0] === key)[1]},
        ...content);
    return el('tr', {'data-source': entry.name, 'data-state': entry.state},
        cell('name', el('a', {href: `#/sources/${enc(entry.name)}`}, entry.name)),
        cell('kind', entry.kind), cell('group', entry.group),
        cell('state', el('span', {class: `badge state-${entry.state}`}, entry.state)),
        cell('alerts'),
        Object.keys(NUMBERS).map(key => cell(key)),
        cell('lastTickStart', timeCell(entry.lastTickStart)),
        cell('lastTickDuration', formatDuration(entry.lastTickDuration)),
        cell('soloMetrics', entry.soloMetrics.join(', ')),
        cell('lastError', entry.lastError ? el('span', {class: errorIsCurrent(entry) ? 'error-text' : 'past-error',
          title: errorIsCurrent(entry) ? undefined : 'A past error: the source has ticked without it since.'},
        entry.lastError) : '',
            entry.lastErrorAt ? el('small', {}, ' ', timeCell(entry.lastErrorAt)) : null),
        cell('owner', entry.owner ?? ''),
        cell('enabled', toggle));
  }

  /**
   * Writes the key numbers into the shown rows' cells in place: a row is never rebuilt for them. A
   * source that is not connected keeps its last numbers marked stale, with the time they were read.
   */
  function showNumbers() {
    for (const row of body.rows) {
      const numbers = state.numbers.get(row.dataset.source);
      const stale = numbers?.updated && !['connected', 'starting'].includes(row.dataset.state)
        ? ` (as of ${new Date(numbers.updated).toLocaleTimeString()})` : '';
      for (const [key, format] of Object.entries(NUMBERS)) {
        const value = numbers?.[key];
        const text = value === null || value === undefined ? '' : format(value) + stale;
        const cell = row.querySelector(`.col-${key}`);
        if (cell.textContent !== text) cell.textContent = text;
        // Why a source has no numbers over a range (its store is down, or holds none of it), and who answered.
        const why = numbers?.error ?? (numbers?.store ? `from ${numbers.store}` : '');
        if (cell.title !== why) cell.title = why;
        cell.classList.toggle('stale-number', stale !== '' && text !== '');
      }
    }
  }

  /** Writes each shown row's firing-alert badges into its cell in place, like the key numbers. */
  function showAlerts() {
    for (const row of body.rows) {
      const counts = state.alerts.get(row.dataset.source) ?? {};
      const cell = row.querySelector('.col-alerts');
      const key = JSON.stringify(counts);
      if (cell.dataset.counts !== key) {
        fill(cell, countBadges(el, counts));
        cell.dataset.counts = key;
      }
    }
  }

  function renderAlerts(alerts) {
    state.alerts = new Map();
    for (const name of new Set(alerts.map(a => a.source))) state.alerts.set(name, firingCounts(alerts, name));
    if (state.sort === 'alerts') arrange();
    else showAlerts();
  }

  function renderNumbers(list) {
    state.numbers = new Map(list.map(numbers => [numbers.source, numbers]));
    if (state.sort in NUMBERS) arrange();
    else showNumbers();
  }

  const stopAges = keepAgesCurrent(body);
  let stopNumbers = () => {};
  /** Follows the key numbers of `range` (null: the latest reads): live for a range up to now within the window. */
  function followNumbers(range) {
    stopNumbers();
    for (const [key, label] of COLUMNS) {
      if (key in NUMBERS) headRow.querySelector(`[data-key="${key}"] button`).textContent = range ? OVER_RANGE[key] : label;
    }
    const {query, live: isLive} = range ? apiQuery(range, WINDOW_SECONDS) : {query: '', live: true};
    const path = query ? `/api/v1/window?${query}` : '/api/v1/window';
    if (isLive) {
      stopNumbers = live(path, renderNumbers, {pause: 5000});
      return;
    }
    let stopped = false;
    get(path).then(({body}) => { if (!stopped) renderNumbers(body); })
      .catch(error => { if (!stopped) fill(notice, `Key numbers over the range failed: ${error.message}`); });
    stopNumbers = () => { stopped = true; };
  }
  followNumbers(chosen(rangeFromUrl()));
  const stopLive = followFleet(render,
      {onError: error => fill(notice, `Live update failed: ${error.message}; retrying.`)});
  const stopAlerts = followAlerts(alerts => { if (alerts) renderAlerts(alerts); });
  return () => { stopAges(); stopLive(); stopNumbers(); stopAlerts(); };
}

/** The range the key numbers are asked over, or null for the default (the latest reads). */
function chosen(range) {
  return range.from || range.last !== DEFAULT_LAST ? range : null;
}

/** Whether the entry's last error is still news: it happened at or after the start of its last tick. */
function errorIsCurrent(entry) {
  return !entry.lastErrorAt || !entry.lastTickStart || entry.state !== 'connected'
    || Date.parse(entry.lastErrorAt) >= Date.parse(entry.lastTickStart);
}

/**
 * Flips a source's enabled flag: reads it and writes it back (the masked password keeps the stored
 * one) on condition that it is still at `shownIndex`, the modifyIndex of what the page showed when
 * the box was clicked, so the toggle never undoes an edit the page has not shown yet.
 */
export async function setEnabled(name, checkbox, notice, shownIndex) {
  checkbox.disabled = true;
  try {
    const {body: source} = await get(`/api/v1/sources/${enc(name)}`);
    const {modifyIndex, ...request} = source;
    await put(`/api/v1/sources/${enc(name)}`, {...request, enabled: checkbox.checked}, shownIndex ?? modifyIndex);
  } catch (error) {
    checkbox.checked = !checkbox.checked;
    fill(notice, isStale(error)
      ? `Not changed: ${name} was changed by someone else after this page showed it; the page shows it as it is now.`
      : `Could not change ${name}: ${error.message}`);
  } finally {
    checkbox.disabled = false;
  }
}
