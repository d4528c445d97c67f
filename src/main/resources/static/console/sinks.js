// Sinks: each sink's delivery state. The API has no blocking query for sinks (their counters
// change with every batch), so this page re-reads every 2 s while it is shown. Below, the kinds of
// sink this build has, read once from the collector's sink registry: a kind added there shows
// here without a change.
import {el, fill, heading, timeCell} from './dom.js';
import {get} from './api.js';

export function renderSinks(view) {
  const body = el('tbody', {id: 'sinks'});
  const notice = el('p', {class: 'notice', role: 'status'});
  const types = el('tbody', {id: 'sink-types'});
  fill(view, heading('Sinks'), notice, el('div', {class: 'table-wrap'}, el('table', {class: 'cards'},
      el('thead', {}, el('tr', {}, ['Sink', 'Type', 'Destination', 'Health', 'Queued', 'Spilled', 'Written', 'Dropped', 'Failures',
        'Last failure'].map(h => el('th', {scope: 'col'}, h)))), body)),
      el('h2', {}, 'Kinds of sink (pgharvest.sinks[i].type)'), el('div', {class: 'table-wrap'}, el('table', {class: 'cards'},
      el('thead', {}, el('tr', {}, ['Type', 'Writes to', 'Options of its own'].map(h => el('th', {scope: 'col'}, h)))), types)));
  get('/api/v1/sink-types').then(({body: kinds}) => fill(types, kinds.map(k => el('tr', {'data-sink-type': k.type},
      el('td', {'data-label': 'Type'}, k.type), el('td', {'data-label': 'Writes to'}, k.description),
      el('td', {'data-label': 'Options of its own'}, k.options.map(o => o.name).join(', ') || 'none')))))
    .catch(error => fill(notice, error.message));
  const draw = async () => {
    try {
      const {body: sinks} = await get('/api/v1/sinks');
      notice.replaceChildren(sinks.length ? '' : 'No sink is configured (pgharvest.sinks).');
      fill(body, sinks.map(s => el('tr', {'data-sink': s.name},
          el('td', {'data-label': 'Sink'}, s.name), el('td', {'data-label': 'Type'}, s.type),
          el('td', {'data-label': 'Destination', class: 'destination'}, s.destination ?? ''),
          el('td', {'data-label': 'Health'}, el('span', {class: `badge ${health(s)}`}, health(s))),
          el('td', {'data-label': 'Queued'}, s.queued), el('td', {'data-label': 'Spilled'}, `${s.spilled} (${s.spilledBytes} bytes)`),
          el('td', {'data-label': 'Written'}, s.written), el('td', {'data-label': 'Dropped'}, s.dropped),
          el('td', {'data-label': 'Failures'}, s.failures),
          el('td', {'data-label': 'Last failure', class: 'error-text'}, s.writerFailure ?? s.lastError ?? '', ' ',
              timeCell(s.lastErrorAt)))));
    } catch (error) {
      fill(notice, error.message);
    }
  };
  draw();
  const timer = setInterval(draw, 2000);
  return () => clearInterval(timer);
}

const health = s => s.writerFailure ? 'failed' : s.up ? 'up' : s.lastError ? 'spilling' : 'unknown';
