// The collector's own recent log lines, live through the blocking query of GET /api/v1/logs.
import {el, fill, heading} from './dom.js';
import {live, enc} from './api.js';

export function renderLogs(view) {
  const level = el('select', {id: 'log-level', 'aria-label': 'Least severe level'},
      ['ERROR', 'WARN', 'INFO', 'DEBUG'].map(l => el('option', {value: l, selected: l === 'INFO'}, l)));
  const search = el('input', {type: 'search', id: 'log-search', placeholder: 'Search messages', 'aria-label': 'Search logs'});
  const lines = el('ol', {id: 'log-lines', class: 'log', 'aria-live': 'polite'});
  const notice = el('p', {class: 'notice', role: 'status'});
  fill(view, heading('Logs'), el('div', {class: 'toolbar'}, level, search), notice, lines);
  let stop = null;
  let timer = null;
  const restart = () => {
    stop?.();
    lines.replaceChildren();
    stop = live(`/api/v1/logs?level=${enc(level.value)}&search=${enc(search.value)}`, batch => {
      lines.append(...batch.map(line => el('li', {class: `level-${line.level.toLowerCase()}`},
          el('time', {datetime: line.time}, line.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z')), ' ',
          el('span', {class: 'level'}, line.level), ' ', el('span', {class: 'logger'}, line.logger.replace(/^.*\./, '')),
          ' ', line.message)));
      while (lines.childElementCount > 1000) lines.firstElementChild.remove();
    }, {onError: error => fill(notice, error.message)});
  };
  level.addEventListener('change', restart);
  search.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(restart, 300); });
  restart();
  return () => { clearTimeout(timer); stop?.(); };
}
