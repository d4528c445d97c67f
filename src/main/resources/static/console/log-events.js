// A source's Log tab: the events its log_* metrics read from the server log (GET
// /api/v1/sources/{name}/log-events), newest first, filtered by category, table, query ID and
// severity, each linked to its statement page when it has a query ID and, by its time, to the
// source's charts around it. Read again every 15 s.
// Every value comes from the monitored server (table names, messages): text only, never markup.
import {el, fill, heading, keepAgesCurrent} from './dom.js';
import {get, enc} from './api.js';
import {sourceTabs} from './views.js';
import {atTime} from './statement-log.js';

const CATEGORIES = ['autovacuum', 'checkpoints', 'lock_waits', 'deadlocks', 'temp_files', 'errors',
  'connection_failures', 'slow_statements', 'plans', 'server_events'];
const REFRESH_MS = 15000;
/** Columns every event has, shown in their own cells rather than among the details. */
const COMMON = new Set(['log_time', 'dbname', 'pid', 'queryid']);

export function renderLogEvents(view, name) {
  const category = el('select', {id: 'log-event-category', 'aria-label': 'Category'},
      el('option', {value: ''}, 'All categories'), CATEGORIES.map(c => el('option', {value: c}, c.replace('_', ' '))));
  const severity = el('select', {id: 'log-event-severity', 'aria-label': 'Severity'},
      el('option', {value: ''}, 'Any severity'), ['LOG', 'ERROR', 'FATAL', 'PANIC'].map(s => el('option', {value: s}, s)));
  const table = el('input', {type: 'search', id: 'log-event-table', placeholder: 'schema.table', 'aria-label': 'Table'});
  const queryid = el('input', {type: 'search', id: 'log-event-queryid', placeholder: 'query ID', 'aria-label': 'Query ID'});
  const notice = el('p', {class: 'notice', role: 'status'});
  const rows = el('tbody', {id: 'log-events'});
  const bound = el('p', {class: 'hint', id: 'log-events-bound'});
  fill(view, heading(`Log of ${name}`), sourceTabs(name, 'log'),
      el('div', {class: 'toolbar'}, category, severity, table, queryid), notice, bound,
      el('table', {class: 'log-events'}, el('thead', {}, el('tr', {},
          ['When', 'Event', 'Database', 'Query ID', 'Details'].map(h => el('th', {}, h)))), rows));

  let timer = null;
  let reading = null;
  const read = () => {
    clearTimeout(timer);
    reading?.abort();
    reading = new AbortController();
    const query = new URLSearchParams();
    if (category.value) query.set('category', category.value);
    if (severity.value) query.set('severity', severity.value);
    if (table.value.trim()) query.set('table', table.value.trim());
    if (queryid.value.trim()) query.set('queryid', queryid.value.trim());
    get(`/api/v1/sources/${enc(name)}/log-events?${query}`, {signal: reading.signal}).then(({body}) => {
      fill(notice);
      fill(bound, `The latest ${body.keptPerSource} events of this source are kept here; older ones are in the sinks.`);
      fill(rows, body.events.length ? body.events.map(event => eventRow(name, event))
        : el('tr', {}, el('td', {colspan: 5, class: 'empty'}, 'No events: none logged, or the log_* metrics are not'
            + ' collected for this source (preset log_insights; docs/log-insights.md).')));
    }).catch(error => {
      if (error.name !== 'AbortError') fill(notice, error.message);
    }).finally(() => { timer = setTimeout(read, REFRESH_MS); });
  };
  [category, severity].forEach(input => input.addEventListener('change', read));
  let typing = null;
  [table, queryid].forEach(input => input.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(read, 300);
  }));
  const stopAges = keepAgesCurrent(rows);
  read();
  return () => { clearTimeout(timer); clearTimeout(typing); reading?.abort(); stopAges(); };
}

function eventRow(name, event) {
  const values = event.values ?? {};
  const when = values.log_time ?? event.collectedAt;
  const id = values.queryid;
  const details = Object.entries(values).filter(([column, value]) => !COMMON.has(column)
      && value !== null && value !== undefined && value !== '' && column !== 'plan')
    .map(([column, value]) => `${column}=${value}`).join('  ');
  const tags = Object.entries(event.tags ?? {}).map(([tag, value]) => `${tag}=${value}`).join(' ');
  return el('tr', {'data-metric': event.metric},
      el('td', {}, atTime(`#/sources/${enc(name)}`, when)),
      el('td', {}, event.metric.replace(/^log_/, '').replace('_', ' '), tags ? el('div', {class: 'hint'}, tags) : null),
      el('td', {}, String(values.dbname ?? '')),
      el('td', {}, id ? el('a', {href: `#/sources/${enc(name)}/queries/${enc(id)}`}, String(id)) : ''),
      el('td', {class: 'log-event-details'}, details));
}
