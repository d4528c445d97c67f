// The statement page's "In the server log" section: this query ID's slow runs, temporary files,
// lock waits and deadlocks as the log_* metrics read them (GET /api/v1/sources/{name}/log-events
// ?queryid=...; a deadlock also when this statement was the other side). Values are the monitored
// server's: text only, never markup. Each event's time links to this page's charts around it.
import {el, fill, timeCell, keepAgesCurrent} from './dom.js';
import {get, enc} from './api.js';
import {rangeAround} from './range.js';

/** metric -> [label, what to say of one event]. */
const SHOWN = new Map([
  ['log_slow_statements', ['slow run', v => `${v.duration_ms} ms (${v.step ?? 'statement'})`]],
  ['log_temp_files', ['temp file', v => `${v.size_bytes} bytes`]],
  ['log_lock_waits', ['lock wait', v => `${v.state} ${v.lock_mode ?? ''} on ${v.lock_object ?? '?'} after ${v.wait_ms} ms,`
    + ` held by ${v.holder_pids ?? '?'}`]],
  ['log_deadlocks', ['deadlock', v => `pid ${v.pid} against ${v.other_pids ?? '?'} (query IDs ${v.other_queryids ?? '?'})`]],
]);
const REFRESH_MS = 30000;
const NONE = 'Nothing in the server log for this statement: slow runs need log_min_duration_statement, temp files'
  + ' log_temp_files, lock waits log_lock_waits, and the source the log_* metrics (docs/log-insights.md).';

/** {section, stop}: the section, read again every 30 s until stopped. */
export function statementLogSection(name, queryid) {
  const rows = el('tbody', {id: 'statement-log-events'});
  const empty = el('p', {class: 'empty'}, NONE);
  let timer = null;
  const read = () => get(`/api/v1/sources/${enc(name)}/log-events?queryid=${enc(queryid)}&limit=200`)
    .then(({body}) => {
      const events = body.events.filter(event => SHOWN.has(event.metric));
      fill(rows, events.map(event => eventRow(event, `#/sources/${enc(name)}/queries/${enc(queryid)}`)));
      empty.hidden = events.length > 0;
    }).catch(() => {}).finally(() => { timer = setTimeout(read, REFRESH_MS); });
  const stopAges = keepAgesCurrent(rows);
  if (/^-?\d+$/.test(queryid)) read();
  return {
    section: el('section', {}, el('h2', {}, 'In the server log'), empty,
        el('table', {class: 'log-events'}, el('thead', {}, el('tr', {},
            ['When', 'Event', 'What'].map(h => el('th', {scope: 'col'}, h)))), rows)),
    stop: () => { clearTimeout(timer); stopAges(); },
  };
}

function eventRow(event, page) {
  const [label, say] = SHOWN.get(event.metric);
  const v = event.values ?? {};
  return el('tr', {'data-metric': event.metric},
      el('td', {}, atTime(page, v.log_time ?? event.collectedAt)), el('td', {}, label), el('td', {}, say(v)));
}

/** The event's time as a link to `page`'s charts around it (its full time in the title). */
export function atTime(page, instant) {
  const around = rangeAround(instant);
  return around ? el('a', {href: `${page}?${around}`, class: 'at-time'}, timeCell(instant)) : timeCell(instant);
}
