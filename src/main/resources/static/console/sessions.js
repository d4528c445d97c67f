// A source's Sessions tab: the lock tree (who blocks whom, as a tree: each holder with its
// application, state, transaction age and statement, its waiters beneath it with how long they
// waited) and the sessions that are not idle, filterable. From GET /api/v1/sources/{name}/sessions.
// Statement texts come from the monitored database and are shown as text.
import {el, fill, morph} from './dom.js';
import {enc} from './api.js';
import {viewPage, formatAge, sortableTable} from './views.js';

const WORDS = {
  query_samples: ['Sessions', 'no session was active or in a transaction'],
  blocking_locks: ['Lock waits', 'no session waited for a lock'],
};

export function renderSessions(view, name) {
  return viewPage(view, name, 'sessions', 'Sessions', ({content}) => {
    const tree = el('ul', {class: 'lock-tree', id: 'lock-tree'});
    const noLocks = el('p', {class: 'empty', id: 'no-lock-waits', hidden: true}, 'No session waits for a lock.');
    let filterText = '';
    let last = null;
    const filter = el('input', {type: 'search', id: 'sessions-filter', 'aria-label': 'Filter sessions',
      placeholder: 'Filter by pid, user, application, state, wait event or statement',
      oninput: () => { filterText = filter.value.toLowerCase(); if (last) showSessions(last); }});
    const table = sortableTable('sessions', [
      ['pid', 'PID', s => s.pid, s => +s.pid],
      ['user', 'User', s => s.user, s => s.user],
      ['application', 'Application', s => s.application, s => s.application],
      ['state', 'State', s => s.state, s => s.state],
      ['wait', 'Wait event', s => s.waitEventType ? `${s.waitEventType}: ${s.waitEvent}` : '', s => s.waitEvent],
      ['statementSeconds', 'Statement for', s => formatAge(s.statementSeconds), s => s.statementSeconds, true],
      ['transactionSeconds', 'In transaction', s => formatAge(s.transactionSeconds), s => s.transactionSeconds, true],
      ['blockedBy', 'Blocked by', s => s.blockedBy.join(', '), s => s.blockedBy.length],
      ['query', 'Statement', s => statement(name, s.queryid, s.text), s => s.text ?? s.queryid],
    ], {sort: 'transactionSeconds', rowKey: s => s.pid});
    const noSessions = el('p', {class: 'empty', id: 'no-sessions', hidden: true});
    fill(content, el('section', {}, el('h2', {}, 'Lock tree'), tree, noLocks),
        el('section', {}, el('h2', {}, 'Sessions'), el('div', {class: 'toolbar'}, filter), table.element, noSessions));

    function showSessions(answer) {
      const shown = answer.sessions.filter(s => !filterText || [s.pid, s.user, s.application, s.state, s.waitEventType,
        s.waitEvent, s.text, s.queryid, s.dbname].some(v => v && String(v).toLowerCase().includes(filterText)));
      table.show(shown);
      noSessions.hidden = shown.length > 0;
      fill(noSessions, answer.sessions.length ? 'No session matches the filter.'
        : 'No session is active or in a transaction (query_samples lists the sessions that are not idle).');
    }
    return {
      path: 'sessions', words: WORDS,
      render(answer) {
        last = answer;
        morph(tree, el('ul', {class: 'lock-tree', id: 'lock-tree'}, answer.lockTree.map(node => lockNode(name, node))));
        noLocks.hidden = answer.lockTree.length > 0;
        showSessions(answer);
      },
    };
  });
}

function lockNode(name, node) {
  const holder = node.waitSeconds == null || node.waitSeconds == undefined;
  return el('li', {'data-pid': node.pid, class: holder ? 'holder' : 'waiter'},
      el('span', {class: 'lock-session'},
          el('strong', {}, holder ? 'holds ' : 'waits ', `pid ${node.pid}`),
          node.application ? el('span', {class: 'application'}, ` ${node.application}`) : null,
          node.user ? ` (${node.user})` : '',
          node.state ? el('span', {class: 'state'}, ` · ${node.state}`) : null,
          node.transactionSeconds !== null && node.transactionSeconds !== undefined
            ? el('span', {class: 'transaction-age'}, ` · transaction open ${formatAge(node.transactionSeconds)}`) : null,
          holder ? null : el('span', {class: 'wait-age'}, ` · waiting ${formatAge(node.waitSeconds)}`),
          node.statement || node.queryid ? [' · ', statement(name, node.queryid, node.statement)] : null),
      node.waiters.length ? el('ul', {}, node.waiters.map(w => lockNode(name, w))) : null);
}

/** A statement's text (or its query id), linked to its page when it has a query id. */
export function statement(name, queryid, text) {
  const shown = text ? oneLine(text) : queryid ? `query id ${queryid} (text not read yet)` : '';
  const code = el('code', {class: 'statement-text'}, shown);
  return queryid ? el('a', {href: `#/sources/${enc(name)}/queries/${enc(queryid)}`}, code) : code;
}

function oneLine(text) {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}
