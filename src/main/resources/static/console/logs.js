// The collector's own recent log, one line per cause, live through the blocking query of
// GET /api/v1/logs/causes: lines that say the same of many sources are one line, with the sources
// counted and listed on demand.
import {el, fill, heading} from './dom.js';
import {get, live, enc} from './api.js';

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
    stop = live(`/api/v1/logs/causes?level=${enc(level.value)}&search=${enc(search.value)}`, causes => {
      causes.forEach(cause => show(lines, cause, notice));
      while (lines.childElementCount > 1000) lines.firstElementChild.remove();
    }, {onError: error => fill(notice, error.message)});
  };
  level.addEventListener('change', restart);
  search.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(restart, 300); });
  restart();
  return () => { clearTimeout(timer); stop?.(); };
}

/** One cause's line, updated in place when it repeats (its sources' list stays open), newest last. */
function show(lines, cause, notice) {
  let line = lines.querySelector(`li[data-cause="${cause.id}"]`);
  if (!line) {
    line = el('li', {'data-cause': cause.id});
  }
  const list = line.querySelector('.cause-source-list');
  const toggle = cause.sources > 0 ? el('button', {type: 'button', class: 'cause-sources', 'aria-expanded': String(!!list),
      title: 'The sources this line is logged for', onclick: () => toggleSources(line, cause.id, notice)},
      cause.sources === 1 ? '1 source' : `${cause.sources} sources`) : null;
  line.className = `level-${cause.level.toLowerCase()}`;
  fill(line,
      el('time', {datetime: cause.last}, cause.last.replace('T', ' ').replace(/\.\d+Z$/, 'Z')), ' ',
      el('span', {class: 'level'}, cause.level), ' ', el('span', {class: 'logger'}, cause.logger.replace(/^.*\./, '')),
      ' ', cause.message,
      cause.count > 1 ? el('span', {class: 'cause-count', title: `logged ${cause.count} times since ${cause.first}`},
          ` ×${cause.count}`) : null,
      toggle ? ' ' : null, toggle, list);
  if (list) fillSources(list, cause.id, notice);
  if (line !== lines.lastElementChild) lines.append(line);
}

function toggleSources(line, id, notice) {
  const open = line.querySelector('.cause-source-list');
  const button = line.querySelector('.cause-sources');
  if (open) {
    open.remove();
    button?.setAttribute('aria-expanded', 'false');
    return;
  }
  const list = el('ul', {class: 'cause-source-list'});
  line.append(list);
  button?.setAttribute('aria-expanded', 'true');
  fillSources(list, id, notice);
}

async function fillSources(list, id, notice) {
  try {
    const {body: names} = await get(`/api/v1/logs/causes/${enc(id)}/sources`);
    fill(list, names.map(name => el('li', {}, el('a', {href: `#/sources/${enc(name)}`}, name))));
  } catch (error) {
    fill(notice, error.message);
  }
}
