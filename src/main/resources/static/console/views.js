// What the database views of a source share: the tab bar of a source's pages, the page frame that
// follows the source's connection state, the honest line for each metric a view reads (not collected,
// waiting for its first read, read at a time, stale), and a sortable table kept in place on live updates.
import {el, fill, heading, morph, ago} from './dom.js';
import {live, enc} from './api.js';

const TABS = [['', 'Health'], ['sessions', 'Sessions'], ['tables', 'Tables'], ['indexes', 'Indexes'],
  ['server', 'Wraparound and replication'], ['queries', 'Queries'], ['log', 'Log']];

/** The tabs of source `name`'s pages, `current` marked ('' is the source's own page). */
export function sourceTabs(name, current) {
  return el('nav', {class: 'tabs', 'aria-label': `Pages of ${name}`}, TABS.map(([path, label]) => el('a', {
    href: `#/sources/${enc(name)}${path ? `/${path}` : ''}`, id: `tab-${path || 'health'}`,
    'aria-current': path === current ? 'page' : undefined}, label)));
}

/** Seconds as "45 s", "12 min", "3.5 h", "4.2 d". */
export function formatAge(seconds) {
  if (seconds == null || seconds == undefined) return '';
  const s = Math.abs(seconds);
  if (s < 120) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

/**
 * One line per metric a view reads, saying what its (possibly empty) list means: `what` names what
 * the metric would show, `none` what an empty read means ("no standby is connected").
 */
export function readLines(reads, words = {}) {
  return reads.map(r => {
    const [what, none] = words[r.metric] ?? [r.metric, 'nothing'];
    const every = r.intervalSeconds ? ` (every ${r.intervalSeconds} s)` : '';
    const attrs = {class: `read read-${r.state}${r.stale ? ' read-stale' : ''}`, 'data-metric': r.metric,
      'data-state': r.stale ? 'stale' : r.state};
    if (r.state === 'not-collected') {
      return el('li', attrs, `${what}: not collected. This source's selection lacks ${r.metric}; edit the source and `
          + `add it (the standard preset has most views' metrics).`);
    }
    if (r.state === 'waiting') {
      return el('li', attrs, `${what}: waiting for the first read of ${r.metric}${every}.`);
    }
    const at = el('time', {datetime: r.readAt, title: r.readAt}, ago(r.readAt));
    if (r.stale) {
      return el('li', attrs, `${what}: stale, as last read at ${new Date(r.readAt).toLocaleTimeString()} (`, at,
          `) by ${r.metric}${every}.`);
    }
    if (r.rowsNotKept) {
      // The view's list is empty because the window refused the rows, not because there were none.
      return el('li', {...attrs, class: `${attrs.class} read-not-kept`, 'data-state': 'not-kept'},
          `${what}: ${r.rows.toLocaleString('en-US')} rows read at ${new Date(r.readAt).toLocaleTimeString()} (`, at,
          `) by ${r.metric}${every}, not kept: ${r.rowsNotKept}.`);
    }
    return el('li', attrs, `${what}: read `, at, ` by ${r.metric}${every}`, r.rows === 0 ? `: ${none}.` : '.');
  });
}

/**
 * The frame of a source's view page: heading, tabs, a line for the source's connection (the
 * failure named as the connection's, cleared when the source is back), the view's notice. `body(parts)`
 * builds the page and returns {path, render(answer), stop?}; the view's answer is rendered with the
 * source state it was read in. Returns the stop function.
 */
export function viewPage(view, name, tab, title, body) {
  const connection = el('p', {class: 'warning', id: 'source-connection', role: 'alert', hidden: true});
  const notice = el('p', {class: 'notice', role: 'status', id: 'view-notice'});
  const reads = el('ul', {class: 'reads', id: 'view-reads'});
  const content = el('div', {id: `view-${tab}`});
  fill(view, heading(`${title} of ${name}`), sourceTabs(name, tab), connection, notice, reads, content);
  const page = body({content, notice});
  let last = null;
  let sourceDown = false;
  const show = () => {
    if (!last) return;
    content.classList.toggle('stale', sourceDown || last.reads.some(r => r.stale));
    morph(reads, el('ul', {class: 'reads', id: 'view-reads'}, readLines(last.reads, page.words)));
    page.render(last);
  };
  const stopStatus = live(`/api/v1/sources/${enc(name)}/status`, s => {
    const error = s.runtime?.lastConnectionError;
    sourceDown = !['connected', 'starting'].includes(s.state);
    connection.hidden = !sourceDown;
    if (sourceDown) {
      fill(connection, `The source is ${s.state}`, error ? `: the connection failed: ${error}` : '',
          '. What this page shows is as of the times below.');
    }
    show();
  }, {onError: () => {}});
  const stopView = live(`/api/v1/sources/${enc(name)}/${page.path}`, answer => {
    notice.replaceChildren();
    last = answer;
    show();
  }, {wait: '30s', onError: error => fill(notice, error.status === 404 ? 'No such source.'
      : `Live update failed: ${error.message}; retrying.`)});
  return () => { stopStatus(); stopView(); page.stop?.(); };
}

/** Rows a view table shows at first and adds per "Show more": 1,000 rows took Chromium 2.5 s to build (docs/performance.md). */
export const PAGE_ROWS = 100;

/** What a view's empty list means: `none` unless the window refused a read's rows (its read line says why). */
export function emptyText(answer, none) {
  return answer.reads.some(r => r.rowsNotKept) ? 'Not shown: the latest read\'s rows were not kept (see above).' : none;
}

/**
 * A table sorted by a clicked column, rebuilt in place (morph) so the focus and the scroll stay. It
 * shows the first `page` rows of the sorted list and a "Show more" button for the next; how many are
 * shown survives live updates and sorting.
 * `columns`: [key, label, cell(row) -> node or text, value(row) -> sort key, numeric].
 * Returns {element, show(rows)}.
 */
export function sortableTable(id, columns, {sort, descending = true, rowKey, page = PAGE_ROWS}) {
  const state = {sort, descending, rows: [], shown: page};
  const moreText = el('span');
  const more = el('p', {class: 'more', hidden: true}, moreText, el('button', {type: 'button', id: `${id}-more`,
    onclick: () => { state.shown += page; show(state.rows); }}, `show ${page} more`));
  const head = el('tr', {});
  const body = el('tbody', {id});
  const table = el('table', {class: 'cards view-table'}, el('thead', {}, head), body);
  const heads = () => morph(head, el('tr', {}, columns.map(([key, label, , , numeric]) => el('th', {scope: 'col',
    'data-key': key, class: numeric ? 'number' : undefined,
    'aria-sort': key === state.sort ? (state.descending ? 'descending' : 'ascending') : 'none'},
  el('button', {type: 'button', class: 'sort', 'data-sort': key}, label)))));
  head.addEventListener('click', event => {
    const key = event.target.closest('button')?.dataset.sort;
    if (!key) return;
    state.descending = state.sort === key ? !state.descending : true;
    state.sort = key;
    show(state.rows);
  });
  const show = rows => {
    state.rows = rows;
    const column = columns.find(c => c[0] === state.sort);
    const value = column[3];
    const sorted = [...rows].sort((a, b) => {
      const [x, y] = [value(a) ?? -Infinity, value(b) ?? -Infinity];
      const order = x < y ? -1 : x > y ? 1 : 0;
      return state.descending ? -order : order;
    });
    heads();
    morph(body, el('tbody', {id}, sorted.slice(0, state.shown).map(row => el('tr', {'data-key': rowKey(row)},
        columns.map(([key, label, cell, , numeric]) => el('td', {'data-label': label,
          class: `col-${key}${numeric ? ' number' : ''}`}, cell(row)))))));
    const hidden = sorted.length - state.shown;
    more.hidden = hidden <= 0;
    moreText.textContent = `Showing ${Math.min(state.shown, sorted.length)} of ${sorted.length} rows; sort or `;
  };
  heads();
  return {element: el('div', {}, el('div', {class: 'table-wrap'}, table), more), show};
}
