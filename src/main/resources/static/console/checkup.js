// A source's check-up (GET /api/v1/sources/{name}/alert-checks): every rule that applies to it with
// its current value, threshold and state, so "is anything near a limit?" has an answer before an
// alert fires. Values change with every measurement and have no blocking query of their own: read
// again when an alert changes (the shared alerts query) and every 10 s. Rule names, tags and
// values are text.
import {el, fill, morph, timeCell} from './dom.js';
import {get, enc} from './api.js';
import {followAlerts} from './alertfeed.js';

const STATES = {firing: 'firing', pending: 'pending', ok: 'ok'};

/**
 * Fills `container` with the check-up of source `name`; `collected()` gives the metrics the source
 * collects (its status's intervals), so a rule without data says whether its metric is collected.
 * Returns a stop function.
 */
export function renderCheckUp(container, name, collected) {
  const notice = el('p', {class: 'notice', role: 'status', id: 'checkup-notice'});
  const body = el('tbody', {id: 'checkup'});
  const summary = el('p', {class: 'reads', id: 'checkup-summary'});
  const noData = el('details', {class: 'glossary', id: 'checkup-no-data', hidden: true});
  fill(container, el('h2', {}, 'Check-up'), summary, notice,
      el('div', {class: 'table-wrap'}, el('table', {class: 'cards checkup'}, el('thead', {}, el('tr', {},
          ['State', 'Rule', 'Metric', 'Value', 'Threshold', 'For', 'Severity'].map(h => el('th', {scope: 'col'}, h)))),
      body)), noData);
  let last = null;
  let reading = false;
  const show = answer => {
    last = answer;
    const withData = answer.checks.filter(c => c.state !== 'no-data');
    const without = answer.checks.filter(c => c.state === 'no-data');
    const counts = Object.keys(STATES).map(s => [s, withData.filter(c => c.state === s).length]).filter(([, n]) => n);
    fill(summary, answer.evaluatedHere
      ? `${answer.checks.length} rules apply to this source: ${counts.map(([s, n]) => `${n} ${s}`).join(', ') || 'none with data yet'}`
        + `${without.length ? `, ${without.length} without data` : ''}. Values are the last rows of each rule's metric.`
      : 'Another instance collects this source and evaluates its rules: its check-up is on that instance\'s console.');
    morph(body, el('tbody', {id: 'checkup'}, withData.map(checkRow)));
    noData.hidden = without.length === 0;
    const metrics = collected();
    morph(noData, el('details', {class: 'glossary', id: 'checkup-no-data', hidden: without.length === 0,
      open: noData.open || undefined},
    el('summary', {}, `${without.length} rules without data`),
    el('ul', {}, without.map(c => el('li', {'data-rule': c.rule}, el('strong', {}, c.rule), ': ',
        metrics && !(c.metric in metrics) && c.metric !== 'instance_up'
          ? `${c.metric} is not collected from this source (add it to apply the rule).`
          : `waiting for the first read of ${c.metric}.`)))));
  };
  const read = async () => {
    if (reading) return;
    reading = true;
    try {
      const {body: answer} = await get(`/api/v1/sources/${enc(name)}/alert-checks`);
      notice.replaceChildren();
      show(answer);
    } catch (error) {
      fill(notice, error.status === 404 ? 'No check-up: the source is unknown here.'
        : `The check-up could not be read: ${error.message}`);
    } finally {
      reading = false;
    }
  };
  const stopAlerts = followAlerts(alerts => { if (alerts) read(); });
  const timer = setInterval(read, 10000);
  read();
  return {stop: () => { stopAlerts(); clearInterval(timer); }, refresh: () => last && show(last)};
}

function checkRow(check) {
  return el('tr', {'data-rule': check.rule, 'data-state': check.state},
      el('td', {'data-label': 'State'}, el('span', {class: `badge check-${check.state}`}, check.state)),
      el('td', {'data-label': 'Rule', class: 'col-rule'}, check.rule),
      el('td', {'data-label': 'Metric'}, check.metric, check.readAt ? el('small', {}, ' read ', timeCell(check.readAt)) : null),
      el('td', {'data-label': 'Value', class: 'col-value'}, value(check)),
      el('td', {'data-label': 'Threshold', class: 'col-threshold'}, threshold(check)),
      el('td', {'data-label': 'For'}, check.for ?? check.forDuration),
      el('td', {'data-label': 'Severity'}, el('span', {class: `badge severity-${check.severity}`}, check.severity)));
}

/** One row's value; of several rows, those not ok (with their tags), else how many and their range. */
function value(check) {
  const tagged = row => Object.keys(row.tags).length > 0;
  if (check.rows.length === 1 && !tagged(check.rows[0])) {
    return check.rows[0].value !== '' ? check.rows[0].value
      : el('small', {class: 'muted', title: 'The column the condition reads is NULL in the last row'}, 'none (NULL)');
  }
  if (check.rowCount === 0) return el('small', {}, 'no row: nothing to check (the metric returned none)');
  const notOk = check.rows.filter(r => r.state !== 'ok');
  if (notOk.length) {
    return el('ul', {class: 'check-rows'}, notOk.slice(0, 5).map(r => el('li', {'data-state': r.state},
        Object.entries(r.tags).map(([k, v]) => `${k}=${v}`).join(', '), r.value !== '' ? `: ${r.value}` : '',
        ` (${r.state})`)), notOk.length > 5 ? el('li', {}, `and ${notOk.length - 5} more`) : null);
  }
  const numbers = check.rows.filter(r => r.value !== '').map(r => Number(r.value)).filter(Number.isFinite);
  const range = numbers.length ? `, values ${Math.min(...numbers)} to ${Math.max(...numbers)}` : '';
  return `${check.rowCount} rows, all ok${range}`;
}

/** The parameters the condition compares with (the source's overrides applied), else the condition. */
function threshold(check) {
  const params = Object.entries(check.params || {});
  return [params.length ? el('span', {}, params.map(([k, v]) => `${k} = ${v}`).join(', ')) : null,
    el('div', {}, el('code', {class: 'statement-text'}, check.condition))];
}
