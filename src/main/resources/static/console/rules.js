// Alert rules: the built-in pack and the operator's own, with search, and an editor (metric,
// condition, for, severity, summary, ...) whose "Test" runs the draft's condition on the last rows
// of its metric from every source evaluated here and replays the last hour of them from the recent
// window with its for (POST /api/v1/alert-rules/test), saving nothing: a problem (a CEL error with its position, an unknown column) shows next to its field.
import {el, fill, heading} from './dom.js';
import {get, post, put, del, live, enc, isStale} from './api.js';
import {field, input, textarea, select, showProblems, clearProblems, parsePairs, formatPairs} from './form.js';

export function renderRules(view) {
  const search = el('input', {type: 'search', id: 'rules-search', placeholder: 'Search by name, metric or condition',
    'aria-label': 'Search rules', oninput: () => draw()});
  const list = el('tbody', {id: 'rules'});
  const panel = el('div', {id: 'rule-editor'});
  const notice = el('p', {class: 'notice', role: 'status'});
  let rules = [];
  let metrics = [];
  fill(view, heading('Alert rules', el('button', {type: 'button', id: 'new-rule',
    onclick: () => ruleEditor(panel, null, metrics)}, 'New rule'),
  el('a', {class: 'button', href: '#/alerts'}, 'Alerts')), notice, panel, el('div', {class: 'toolbar'}, search),
  el('div', {class: 'table-wrap'}, el('table', {class: 'cards'}, el('thead', {}, el('tr', {},
      ['Rule', 'Metric', 'Condition', 'For', 'Severity', 'Origin', ''].map(h => el('th', {scope: 'col'}, h)))), list)));
  get('/api/v1/metrics').then(({body}) => { metrics = body.map(m => m.storageName || m.name); })
    .catch(() => { metrics = []; });

  function draw() {
    const text = search.value.toLowerCase();
    fill(list, rules.filter(r => !text || [r.name, r.metric, r.condition].some(v => String(v).toLowerCase().includes(text)))
        .map(rule => el('tr', {'data-rule': rule.name, class: rule.enabled ? undefined : 'disabled'},
            el('td', {'data-label': 'Rule', class: 'col-rule'}, el('strong', {}, rule.name),
                rule.enabled ? null : el('small', {}, ' off'),
                rule.problems?.length ? el('div', {class: 'error-text'}, `Not evaluated: ${rule.problems
                  .map(p => `${p.field}: ${p.message}`).join('; ')}`) : null),
            el('td', {'data-label': 'Metric'}, rule.metric),
            el('td', {'data-label': 'Condition'}, el('code', {class: 'statement-text'}, rule.condition),
                Object.keys(rule.params || {}).length ? el('div', {}, el('small', {}, formatPairs(rule.params))) : null),
            el('td', {'data-label': 'For'}, rule.for),
            el('td', {'data-label': 'Severity'}, el('span', {class: `badge severity-${rule.severity}`}, rule.severity)),
            el('td', {'data-label': 'Origin'}, rule.origin),
            el('td', {}, el('button', {type: 'button', class: 'edit-rule',
              onclick: () => ruleEditor(panel, rule, metrics)}, 'Edit'), ' ',
            rule.origin === 'built-in' ? null : el('button', {type: 'button', class: rule.origin === 'override' ? '' : 'danger',
              onclick: event => confirmDelete(event.target, rule, notice)},
            rule.origin === 'override' ? 'Revert to built-in' : 'Delete')))));
  }
  return live('/api/v1/alert-rules', body => { rules = body; draw(); },
      {onError: error => fill(notice, `Live update failed: ${error.message}; retrying.`)});
}

function confirmDelete(button, rule, notice) {
  const box = el('span', {class: 'confirm', role: 'alertdialog'}, `${rule.origin === 'override' ? 'Revert' : 'Delete'} `,
      el('strong', {}, rule.name), '? ',
      el('button', {type: 'button', class: 'danger', onclick: async () => {
        // cas: never deletes a change this page has not shown
        try { await del(`/api/v1/alert-rules/${enc(rule.name)}`, rule.modifyIndex); }
        catch (error) {
          box.replaceWith(button);
          fill(notice, isStale(error) ? `Not deleted: ${rule.name} was changed by someone else after this page showed it.`
            : error.message);
        }
      }}, 'Yes'),
      el('button', {type: 'button', onclick: () => box.replaceWith(button)}, 'Cancel'));
  button.replaceWith(box);
  box.querySelector('button').focus();
}

/** The editor of `rule` (null: a new one). */
function ruleEditor(panel, rule, metrics) {
  const r = rule || {severity: 'warning', for: '5m', keepFiringFor: '0s', enabled: true, sources: {}};
  const f = {
    name: input(r.name, {disabled: Boolean(rule), spellcheck: 'false'}),
    metric: input(r.metric, {list: 'rule-metrics', spellcheck: 'false', autocomplete: 'off'}),
    condition: textarea(r.condition, {rows: 3, spellcheck: 'false'}),
    params: input(formatPairs(r.params), {placeholder: 'max_s=600, …'}),
    for: input(r.for, {class: 'short'}),
    keepFiringFor: input(r.keepFiringFor, {class: 'short'}),
    severity: select(['warning', 'critical'], r.severity),
    summary: input(r.summary),
    description: input(r.description),
    runbook: input(r.runbook, {type: 'url'}),
    sourceNames: input((r.sources?.names || []).join(', '), {placeholder: 'all sources'}),
  };
  const enabled = el('input', {type: 'checkbox', id: 'field-enabled', name: 'enabled', checked: r.enabled !== false});
  const outcome = el('div', {id: 'rule-test-result', role: 'status'});
  const body = () => ({
    name: f.name.value.trim(), metric: f.metric.value.trim(), condition: f.condition.value,
    for: f.for.value.trim() || undefined, keepFiringFor: f.keepFiringFor.value.trim() || undefined,
    severity: f.severity.value, summary: f.summary.value || undefined, description: f.description.value || undefined,
    runbook: f.runbook.value.trim() || undefined, labels: r.labels,
    sources: {...(r.sources || {}), names: f.sourceNames.value.split(',').map(s => s.trim()).filter(Boolean)},
    params: parsePairs(f.params.value, true), overrides: r.overrides, enabled: enabled.checked,
  });
  const form = el('form', {class: 'card', novalidate: true, id: 'rule-form'},
      el('h2', {}, rule ? ['Edit rule ', el('span', {}, rule.name)] : 'New rule'),
      el('p', {class: 'form-error', role: 'alert'}),
      field('Name', 'name', f.name),
      field('Metric (its rows are what the condition reads)', 'metric', f.metric),
      el('datalist', {id: 'rule-metrics'}, ['instance_up', ...metrics].map(m => el('option', {value: m}))),
      field('Condition (CEL, over the row\'s columns and tags, source, params, previous)', 'condition', f.condition),
      field('Parameters (the condition reads params.NAME)', 'params', f.params),
      field('For (how long the condition holds before it fires: 30s, 5m, 1h)', 'for', f.for),
      field('Keep firing for', 'keepFiringFor', f.keepFiringFor),
      field('Severity', 'severity', f.severity),
      field('Summary ({{ value }}, {{ source }}, {{ column }})', 'summary', f.summary),
      field('Description', 'description', f.description), field('Runbook link', 'runbook', f.runbook),
      field('Sources (names, comma separated; empty: every source)', 'sources', f.sourceNames),
      el('div', {class: 'field inline'}, enabled, el('label', {for: 'field-enabled'}, 'Enabled')),
      el('div', {class: 'actions'},
          el('button', {type: 'button', id: 'test-rule', title: 'Runs the draft on the last rows of its metric from'
            + ' every source evaluated here, and replays the last hour of them with its for; saves nothing',
          onclick: () => test()},
          'Test against the last hour'),
          el('button', {type: 'submit', id: 'save-rule'}, 'Save'),
          el('button', {type: 'button', onclick: () => panel.replaceChildren()}, 'Cancel')),
      outcome);

  async function test() {
    clearProblems(form);
    fill(outcome, 'Testing…');
    try {
      const {body: tested} = await post('/api/v1/alert-rules/test', body());
      const found = tested.now;
      fill(outcome, el('p', {class: found.length ? 'warning' : 'ok', id: 'rule-test-outcome'}, found.length
        ? `It would raise ${found.length} alert${found.length === 1 ? '' : 's'} now:`
        : 'It would raise nothing now on the latest rows of its metric.'),
      found.length ? el('ul', {id: 'rule-test-alerts'}, found.map(a => el('li', {}, sourceLink(a.source),
          a.value !== '' ? ` · value ${a.value}` : '', a.summary ? ` · ${a.summary}` : '', rowLabels(a.labels)))) : null,
      hourOutcome(tested));
    } catch (error) {
      outcome.replaceChildren();
      showProblems(form, error);
    }
  }
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearProblems(form);
    try {
      // cas: a built-in rule not overridden is at 0, so two editors never both write its override
      if (rule) await put(`/api/v1/alert-rules/${enc(rule.name)}`, body(), rule.modifyIndex);
      else await post('/api/v1/alert-rules', body());
      panel.replaceChildren();
    } catch (error) {
      showProblems(form, error);
    }
  });
  fill(panel, form);
  (rule ? f.condition : f.name).focus();
}

const OWN_LABELS = ['alertname', 'source', 'severity'];
const sourceLink = source => el('a', {href: `#/sources/${enc(source)}`}, source);
const at = time => new Date(time).toLocaleTimeString();

/** The row's own labels (its tags), or nothing. */
function rowLabels(labels) {
  const extra = Object.entries(labels).filter(([k]) => !OWN_LABELS.includes(k));
  return extra.length ? el('small', {}, ' (', extra.map(([k, v]) => `${k}=${v}`).join(', '), ')') : null;
}

/** The last hour replayed: each alert's pending, firing and end, or why the window could not replay it. */
function hourOutcome(tested) {
  if (tested.notReplayed) return el('p', {class: 'reads', id: 'rule-test-hour'}, `Last hour: ${tested.notReplayed}.`);
  const periods = tested.periods;
  return el('div', {id: 'rule-test-hour'}, el('p', {}, periods.length
    ? `Over the last hour (${at(tested.from)}–${at(tested.to)}), with its for, it would have raised:`
    : `Over the last hour (${at(tested.from)}–${at(tested.to)}) it would have raised nothing.`),
  periods.length ? el('ul', {id: 'rule-test-periods'}, periods.map(p => el('li', {'data-state': p.state},
      el('span', {class: `badge alert-${p.state === 'resolved' ? 'ok' : p.state}`}, p.state), ' ', sourceLink(p.source),
      ` · pending ${at(p.pendingSince)}`, p.firingSince ? `, firing ${at(p.firingSince)}` : ', never firing',
      p.endedAt ? `, ended ${at(p.endedAt)}` : ', still at the end', p.value !== '' ? ` · value ${p.value}` : '',
      rowLabels(p.labels)))) : null);
}
