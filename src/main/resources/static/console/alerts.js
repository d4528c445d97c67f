// The Alerts page: what fires and is pending now (the shared alerts query, alertfeed.js), a
// Silence action per alert, the silences (pgharvest's, expirable here, and every Alertmanager's)
// and the history of firings and resolutions over a range. Rule names, labels, summaries and
// values come from databases and users: every one is text.
import {el, fill, heading, timeCell, keepAgesCurrent, morph} from './dom.js';
import {get, post, del, enc} from './api.js';
import {followAlerts, firingCounts, countBadges} from './alertfeed.js';
import {rangeFromUrl, rangeControls, bounds, describe} from './range.js';
import {field, input, textarea, select, showProblems, clearProblems} from './form.js';

/** Labels every alert has; the rest are the rule's labels and the row's tags. */
const OWN_LABELS = ['alertname', 'source', 'severity'];
const SILENCE_HOURS = [['1', '1 hour'], ['2', '2 hours'], ['4', '4 hours'], ['24', '1 day'], ['168', '7 days']];

export function renderAlerts(view) {
  const notice = el('p', {class: 'notice', role: 'status', id: 'alerts-notice'});
  const counts = el('p', {class: 'alert-summary', id: 'alerts-summary'});
  const current = el('tbody', {id: 'alerts'});
  const none = el('p', {class: 'empty', id: 'no-alerts', hidden: true});
  const panel = el('div', {id: 'silence-panel'});
  const silenceList = el('tbody', {id: 'silences'});
  const noSilences = el('p', {class: 'empty', id: 'no-silences', hidden: true}, 'No silence is active or pending.');
  const unavailable = el('ul', {class: 'reads', id: 'silences-unavailable'});
  const historyBody = el('tbody', {id: 'alert-history'});
  const historyNote = el('p', {class: 'reads', id: 'history-note'});
  // The history shows the last day unless the address names a range (the other pages' 15 minutes
  // would hide most of what happened overnight).
  const named = /[?&](last|from)=/.test(location.hash);
  let historyRange = named ? rangeFromUrl() : {last: '24h', compare: ''};
  const historyControls = rangeControls(historyRange, {prefix: 'history', onChange: range => {
    historyRange = range;
    readHistory();
  }});
  const head = labels => el('thead', {}, el('tr', {}, labels.map(h => el('th', {scope: 'col'}, h))));
  fill(view, heading('Alerts', el('a', {class: 'button', href: '#/alert-rules', id: 'rules-link'}, 'Rules')),
      notice, counts,
      el('section', {}, el('h2', {}, 'Firing and pending'), panel, el('div', {class: 'table-wrap'},
          el('table', {class: 'cards alerts'}, head(['State', 'Severity', 'Rule', 'Source', 'Since', 'Value', 'Summary',
            'Labels', '']), current)), none),
      el('section', {}, el('h2', {}, 'Silences'), unavailable, el('div', {class: 'table-wrap'},
          el('table', {class: 'cards'}, head(['State', 'Matchers', 'Author', 'Comment', 'Starts', 'Ends', 'Origin', '']),
              silenceList)), noSilences),
      el('section', {}, el('div', {class: 'heading'}, el('h2', {}, 'History')), historyControls.element, historyNote,
          el('div', {class: 'table-wrap'}, el('table', {class: 'cards'}, head(['Time', 'Event', 'Rule', 'Source',
            'Severity', 'Value', 'Summary']), historyBody))));

  let alerts = [];
  let silencing = null;

  function showAlerts() {
    const shown = [...alerts].sort((a, b) => (a.state === b.state ? 0 : a.state === 'firing' ? -1 : 1)
        || (a.severity === b.severity ? 0 : a.severity === 'critical' ? -1 : 1)
        || String(a.alertname).localeCompare(String(b.alertname)) || String(a.source).localeCompare(String(b.source)));
    morph(current, el('tbody', {id: 'alerts'}, shown.map(alert => alertRow(alert, () => openSilence(alert)))));
    const firing = firingCounts(alerts);
    const pending = alerts.filter(a => a.state === 'pending').length;
    const silenced = alerts.filter(a => a.silencedBy?.length).length;
    fill(counts, countBadges(el, firing), ` ${alerts.length - pending} firing, ${pending} pending`,
        silenced ? `, ${silenced} of them silenced` : '');
    none.hidden = alerts.length > 0;
    fill(none, 'No alert is firing or pending on the sources this instance evaluates.');
  }

  function openSilence(alert) {
    silencing = alert.fingerprint;
    silenceForm(panel, alert, async () => {
      silencing = null;
      await readSilences();
    }, () => { silencing = null; });
  }

  async function readSilences() {
    try {
      const {body} = await get('/api/v1/silences');
      const listed = body.silences.filter(s => s.state !== 'expired');
      fill(silenceList, listed.map(s => silenceRow(s, readSilences, notice)));
      noSilences.hidden = listed.length > 0;
      fill(unavailable, body.unavailable.map(u => el('li', {class: 'read-stale'},
          `The silences of Alertmanager receiver ${u.receiver} could not be read: ${u.message}`)));
      // A silence that ended by itself wakes no blocking query: read which alerts are silenced now.
      alerts = (await get('/api/v1/alerts')).body;
      showAlerts();
    } catch (error) {
      fill(notice, `The silences could not be read: ${error.message}`);
    }
  }

  let historyGeneration = 0;
  async function readHistory() {
    const range = historyRange;
    const mine = ++historyGeneration;
    const {from, to} = bounds(range);
    try {
      const {body} = await get(`/api/v1/alerts/history?from=${enc(new Date(from).toISOString())}&to=${
        enc(new Date(to).toISOString())}`);
      if (mine !== historyGeneration) return;
      fill(historyNote, body.length ? `${body.length} ${body.length === 1 ? 'firing or resolution' : 'firings and resolutions'}, ${describe(range)}, newest first`
        + (body.length >= 10000 ? ' (the API answers at most 10,000: narrow the range for the rest)' : '') + '.'
        : `No alert fired or resolved ${describe(range)}.`);
      fill(historyBody, [...body].reverse().map(historyRow));
    } catch (error) {
      if (mine === historyGeneration) fill(historyNote, `The history could not be read: ${error.message}`);
    }
  }

  const stopAges = keepAgesCurrent(view);
  const stopAlerts = followAlerts((list, error) => {
    if (error) fill(notice, `Live update failed: ${error.message}; retrying.`);
    else notice.replaceChildren();
    if (!list) return;
    const changed = JSON.stringify(list.map(a => [a.fingerprint, a.state])) !== JSON.stringify(alerts.map(a => [a.fingerprint, a.state]));
    alerts = list;
    showAlerts();
    // A transition is a new history entry: a relative range up to now shows it at once.
    if (changed && !historyRange.from) readHistory();
  });
  readSilences();
  readHistory();
  // Silences end by themselves (no blocking query tells): re-read them every 30 s.
  const timer = setInterval(() => { if (!silencing) readSilences(); }, 30000);
  return () => { stopAlerts(); stopAges(); clearInterval(timer); };
}

/** `alert.silencedBy` is the API's: the silences active now whose matchers hold for its labels. */
function alertRow(alert, silence) {
  const by = alert.silencedBy ?? [];
  const since = alert.firingSince ?? alert.activeSince;
  const extra = Object.entries(alert.labels).filter(([name]) => !OWN_LABELS.includes(name));
  return el('tr', {'data-fingerprint': alert.fingerprint, 'data-state': alert.state, 'data-rule': alert.alertname},
      el('td', {'data-label': 'State'}, el('span', {class: `badge alert-${alert.state}`}, alert.state)),
      el('td', {'data-label': 'Severity'}, el('span', {class: `badge severity-${alert.severity}`}, alert.severity)),
      el('td', {'data-label': 'Rule', class: 'col-rule'}, alert.alertname),
      el('td', {'data-label': 'Source', class: 'col-source'}, el('a', {href: `#/sources/${enc(alert.source)}`}, alert.source)),
      el('td', {'data-label': 'Since', title: alert.state === 'pending' ? 'Pending since: its for has not passed yet'
        : 'Firing since'}, timeCell(since)),
      el('td', {'data-label': 'Value', class: 'col-value number'}, alert.value),
      el('td', {'data-label': 'Summary', class: 'col-summary'}, alert.annotations?.summary ?? ''),
      el('td', {'data-label': 'Labels', class: 'col-labels'}, extra.length ? el('small', {},
          extra.map(([name, value]) => `${name}=${value}`).join(', ')) : ''),
      el('td', {'data-label': '', class: 'col-silence'}, by.length
        ? el('small', {class: 'silenced'}, `silenced by ${by[0].author} until ${new Date(by[0].endsAt).toLocaleString()}`)
        : el('button', {type: 'button', class: 'silence', 'data-fingerprint': alert.fingerprint, onclick: silence},
            'Silence')));
}

/**
 * The form that silences `alert`: matchers for its labels (the rule, the source and the row's
 * tags, each one line "name=value", editable), author, comment and how long.
 */
function silenceForm(panel, alert, saved, cancelled) {
  const own = ['alertname', 'source'].map(name => [name, alert.labels[name] ?? alert[name]]);
  const tags = Object.entries(alert.labels).filter(([name]) => !OWN_LABELS.includes(name));
  const matchers = textarea([...own, ...tags].map(([name, value]) => `${name}=${value}`).join('\n'),
      {rows: Math.min(6, own.length + tags.length), spellcheck: 'false'});
  const author = input('', {required: true, autocomplete: 'name'});
  const comment = input('');
  const hours = select(SILENCE_HOURS.map(([value]) => value), '2');
  hours.querySelectorAll('option').forEach(option => {
    option.textContent = SILENCE_HOURS.find(([value]) => value === option.value)[1];
  });
  const form = el('form', {class: 'card', novalidate: true, id: 'silence-form'},
      el('h2', {}, 'Silence ', el('span', {class: 'silenced-rule'}, alert.alertname), ' on ', alert.source),
      el('p', {class: 'form-error', role: 'alert'}),
      field('Matchers (one name=value a line; every one must match)', 'matchers', matchers),
      field('Author', 'author', author), field('Comment', 'comment', comment), field('For', 'endsAt', hours),
      el('p', {}, el('small', {}, 'pgharvest\'s receivers (webhook, Slack, e-mail) send nothing for the alerts it matches;'
          + ' an Alertmanager receiver sends regardless (silence in Alertmanager for that).')),
      el('div', {class: 'actions'}, el('button', {type: 'submit', id: 'create-silence'}, 'Silence'),
          el('button', {type: 'button', onclick: () => { panel.replaceChildren(); cancelled(); }}, 'Cancel')));
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearProblems(form);
    const body = {matchers: matchers.value.split('\n').map(line => line.trim()).filter(Boolean).map(line => {
      const at = line.indexOf('=');
      return at < 0 ? {name: line, value: ''} : {name: line.slice(0, at).trim(), value: line.slice(at + 1)};
    }), endsAt: new Date(Date.now() + Number(hours.value) * 3600000).toISOString(), author: author.value.trim(),
    comment: comment.value.trim()};
    try {
      await post('/api/v1/silences', body);
      panel.replaceChildren();
      await saved();
    } catch (error) {
      showProblems(form, error);
    }
  });
  fill(panel, form);
  author.focus();
}

function silenceRow(silence, reload, notice) {
  const matcher = m => `${m.name}${m.isEqual === false ? '!' : ''}${m.isRegex ? '=~' : '='}${m.value}`;
  const expire = silence.origin === 'pgharvest' ? el('button', {type: 'button', class: 'expire',
    'data-silence': silence.id, onclick: async () => {
      try { await del(`/api/v1/silences/${enc(silence.id)}`); await reload(); }
      catch (error) { fill(notice, `The silence could not be expired: ${error.message}`); }
    }}, 'Expire') : el('small', {}, 'expire it in Alertmanager');
  return el('tr', {'data-silence': silence.id, 'data-state': silence.state},
      el('td', {'data-label': 'State'}, el('span', {class: `badge silence-${silence.state}`}, silence.state)),
      el('td', {'data-label': 'Matchers', class: 'col-matchers'}, el('code', {}, silence.matchers.map(matcher).join(', '))),
      el('td', {'data-label': 'Author'}, silence.author),
      el('td', {'data-label': 'Comment'}, silence.comment),
      el('td', {'data-label': 'Starts'}, new Date(silence.startsAt).toLocaleString()),
      el('td', {'data-label': 'Ends'}, new Date(silence.endsAt).toLocaleString()),
      el('td', {'data-label': 'Origin'}, silence.origin === 'alertmanager' ? `Alertmanager (${silence.receiver})` : 'pgharvest'),
      el('td', {'data-label': ''}, expire));
}

function historyRow(entry) {
  const at = entry.state === 'resolved' ? entry.endsAt : entry.startsAt;
  return el('tr', {'data-state': entry.state, 'data-rule': entry.alertname},
      el('td', {'data-label': 'Time', title: at}, new Date(at).toLocaleString()),
      el('td', {'data-label': 'Event'}, el('span', {class: `badge alert-${entry.state}`}, entry.state)),
      el('td', {'data-label': 'Rule', class: 'col-rule'}, entry.alertname),
      el('td', {'data-label': 'Source'}, entry.labels?.source
        ? el('a', {href: `#/sources/${enc(entry.labels.source)}`}, entry.labels.source) : ''),
      el('td', {'data-label': 'Severity'}, entry.labels?.severity ?? ''),
      el('td', {'data-label': 'Value', class: 'number'}, entry.value ?? ''),
      el('td', {'data-label': 'Summary', class: 'col-summary'}, entry.annotations?.summary ?? ''));
}
