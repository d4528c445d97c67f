// A source's page (configuration, live status, metrics, actions) and its add / edit / copy form.
import {el, fill, heading, timeCell, formatDuration, keepAgesCurrent, morph} from './dom.js';
import {get, post, put, del, live, enc, isStale} from './api.js';
import {field, input, select, showProblems, clearProblems, parsePairs, formatPairs} from './form.js';
import {setEnabled} from './overview.js';
import {WORDS, laneHint, glossary} from './glossary.js';
import {renderCharts} from './charts.js';
import {sourceTabs} from './views.js';
import {renderCheckUp} from './checkup.js';

export function renderSource(view, name) {
  const notice = el('p', {class: 'notice', role: 'status'});
  // Cleared by the next answer: a failure of the live status is news only while it lasts.
  const liveFailure = el('p', {class: 'notice', role: 'status', id: 'live-failure'});
  const config = el('dl', {class: 'details', id: 'source-config'});
  const status = el('div', {id: 'source-status'});
  const health = el('section', {id: 'source-health'});
  const checkUp = el('section', {id: 'source-checkup'});
  const testResult = el('div', {id: 'test-result', role: 'status'});
  // The configuration as last read, with its modifyIndex: what the toggle and the delete are conditional on.
  let shown = null;
  const toggle = el('input', {type: 'checkbox', id: 'source-enabled',
    onchange: () => setEnabled(name, toggle, notice, shown?.modifyIndex)});
  const confirmBox = el('div', {class: 'confirm', hidden: true, role: 'alertdialog', 'aria-label': 'Confirm deletion'},
      el('span', {}, `Delete the source ${name}? Its collection stops; stored measurements stay.`),
      el('button', {type: 'button', class: 'danger', id: 'confirm-delete', onclick: async () => {
        try { await del(`/api/v1/sources/${enc(name)}`, shown?.modifyIndex); location.hash = '#/'; }
        catch (error) {
          fill(notice, isStale(error) ? `Not deleted: ${name} was changed by someone else after this page showed it;`
            + ' the page shows it as it is now.' : `Delete failed: ${error.message}`);
        }
      }}, 'Delete'),
      el('button', {type: 'button', onclick: () => { confirmBox.hidden = true; }}, 'Cancel'));
  const dashboards = el('span', {id: 'dashboards'});
  fill(view, heading(name,
      el('label', {class: 'inline'}, toggle, ' enabled'),
      el('a', {class: 'button', href: `#/sources/${enc(name)}/queries`, id: 'queries-link'}, 'Queries'),
      dashboards,
      el('a', {class: 'button', href: `#/sources/${enc(name)}/edit`}, 'Edit'),
      el('a', {class: 'button', href: `#/sources/${enc(name)}/copy`}, 'Copy'),
      el('button', {type: 'button', id: 'test-stored', onclick: () => testConnection(
          () => post(`/api/v1/sources/${enc(name)}/test`), testResult, notice)}, 'Test connection'),
      el('button', {type: 'button', class: 'danger', id: 'delete', onclick: () => {
        confirmBox.hidden = false; confirmBox.querySelector('button').focus();
      }}, 'Delete')),
  sourceTabs(name, ''), confirmBox, notice, liveFailure, testResult, health, checkUp, el('section', {}, el('h2', {}, 'Configuration'), config), status, glossary());

  // Read again whenever the live status reports another modifyIndex: an edit elsewhere, or a
  // restart, shows here without a reload.
  let reading = null;
  const readConfig = () => reading ??= get(`/api/v1/sources/${enc(name)}`).then(({body: source}) => {
    shown = source;
    if (!toggle.disabled) toggle.checked = source.enabled;
    const row = (label, value) => value === null || value === undefined || value === '' ? null
      : [el('dt', {}, label), el('dd', {}, String(value))];
    fill(config, row('Connection', source.connStr), row('Kind', source.kind), row('Group', source.group),
        row('Preset', source.preset), row('Custom intervals', formatPairs(source.metrics)),
        row('Standby preset', source.standbyPreset), row('Standby intervals', formatPairs(source.standbyMetrics)),
        row('Tags', formatPairs(source.tags)), row('Only if primary', source.onlyIfPrimary ? 'yes' : null),
        row('Query literals', source.keepQueryLiterals ? 'kept' : null),
        row('Command settings', source.keepCommandSettings ? 'kept' : null),
        row('Include pattern', source.includePattern), row('Exclude pattern', source.excludePattern));
  }).catch(error => fill(notice, error.message)).finally(() => { reading = null; });

  // The history beyond the recent window: the shipped Grafana dashboard, when a Grafana is configured.
  get(`/api/v1/sources/${enc(name)}/dashboards`).then(({body: links}) => {
    fill(dashboards, links.map(d => el('a', {class: 'button', href: d.url, target: '_blank', rel: 'noopener noreferrer',
        id: 'grafana-link', title: `${d.title} in Grafana: this source's history from the sinks`}, 'Grafana')));
    dashboards.setAttribute('data-read', '');
  }).catch(() => dashboards.setAttribute('data-read', ''));

  // Whether a kind collects something without a selection comes from the kind registry (the
  // metrics its discovery adds); until it is read, a source is not warned about.
  let lastStatus = null;
  let kinds = null;
  get('/api/v1/kinds').then(({body}) => {
    kinds = body;
    if (lastStatus) renderStatus(status, lastStatus, kinds);
  }).catch(() => {});
  const stopAges = keepAgesCurrent(status);
  const stopLive = live(`/api/v1/sources/${enc(name)}/status`, s => {
    liveFailure.replaceChildren();
    if (s.modifyIndex !== shown?.modifyIndex) readConfig();
    lastStatus = s;
    renderStatus(status, s, kinds);
  }, {onError: error => fill(liveFailure, error.status === 404 ? 'No such source.' : `Live update failed: ${error.message}`)});
  const stopCharts = renderCharts(health, name);
  // The check-up says "not collected" from the metrics the live status lists.
  const checks = renderCheckUp(checkUp, name, () => lastStatus?.metrics ?? null);
  return () => { stopAges(); stopLive(); stopCharts(); checks.stop(); };
}

/** Whether sources of `kind` collect metrics without a selection of their own (its discovery adds some). */
const addsMetrics = (kinds, kind) => (kinds.find(k => k.kind === kind)?.addedMetrics ?? []).length > 0;

function renderStatus(container, s, kinds) {
  const runtime = s.runtime;
  const nothing = kinds && s.enabled && !addsMetrics(kinds, s.kind) && Object.keys(s.metrics || {}).length === 0
    ? el('p', {class: 'warning', id: 'collects-nothing', role: 'alert'}, 'This source collects nothing: it has no preset',
        ' and no custom intervals. Edit it and choose a preset or give intervals.') : null;
  const facts = el('dl', {class: 'details'},
      el('dt', {}, 'State'), el('dd', {}, el('span', {class: `badge state-${s.state}`, id: 'source-state'}, s.state)),
      runtime?.lastConnectionError ? [el('dt', {}, 'Connection error'),
        el('dd', {class: 'error-text', id: 'connection-error'}, runtime.lastConnectionError, ' ',
            timeCell(runtime.lastConnectionErrorAt))] : null,
      runtime?.serverVersion ? [el('dt', {}, 'Server'), el('dd', {}, runtime.serverVersion,
          runtime.inRecovery ? ' (standby)' : ' (primary)')] : null,
      runtime?.tickPeriod ? [el('dt', {title: WORDS.tick[1]}, 'Tick'), el('dd', {}, `every ${formatDuration(runtime.tickPeriod)}, last `,
          timeCell(runtime.lastTickStart), ` took ${formatDuration(runtime.lastTickDuration)}`)] : null,
      s.owner ? [el('dt', {}, 'Owner instance'), el('dd', {}, s.owner.instance ?? 'none')] : null);
  const intervals = {...s.metrics};
  const metricRows = runtime ? runtime.metrics.map(m => el('tr', {'data-metric': m.name},
      el('td', {'data-label': 'Metric'}, m.name), el('td', {'data-label': 'Interval'}, `${m.intervalSeconds} s`),
      el('td', {'data-label': 'Lane', title: laneHint(m.lane)}, m.lane), el('td', {'data-label': 'Last success'}, timeCell(m.lastSuccess)),
      el('td', {'data-label': 'Last error', class: 'error-text'}, m.lastError ?? '', ' ', timeCell(m.lastErrorAt))))
    : Object.entries(intervals).map(([metric, interval]) => el('tr', {'data-metric': metric},
        el('td', {'data-label': 'Metric'}, metric), el('td', {'data-label': 'Interval'}, `${interval} s`),
        el('td', {'data-label': 'Lane'}, ''), el('td', {'data-label': 'Last success'}, ''),
        el('td', {'data-label': 'Last error'}, '')));
  const members = s.discovery ? el('section', {}, el('h2', {}, 'Discovered members'),
      s.discovery.lastError ? el('p', {class: 'error-text'}, s.discovery.lastError) : null,
      el('ul', {id: 'members'}, s.discovery.members.map(m => el('li', {},
          el('a', {href: `#/sources/${enc(m.name)}`}, m.name), ` ${m.role ?? ''} ${m.state ?? ''}`,
          m.retiredAt ? ' (retired)' : '')))) : null;
  // Updated in place: nodes whose data did not change (and the focus) stay.
  morph(container, el('div', {id: container.id}, el('section', {}, el('h2', {}, 'Status'), nothing, facts), members,
      el('section', {}, el('h2', {}, 'Metrics'), el('div', {class: 'table-wrap'}, el('table', {class: 'cards'},
          el('thead', {}, el('tr', {}, ['Metric', 'Interval', 'Lane', 'Last success', 'Last error']
              .map(h => el('th', {scope: 'col'}, h)))), el('tbody', {id: 'source-metrics'}, metricRows))))));
}

async function testConnection(request, target, notice) {
  fill(target, 'Testing…');
  try {
    const {body: r} = await request();
    fill(target, el('p', {class: r.reachable ? 'ok' : 'error-text', id: 'test-outcome'}, r.reachable
      ? `Connected: ${r.serverVersion ?? ''} ${r.inRecovery ? '(standby)' : ''} in ${r.latencyMillis ?? '?'} ms`
      : `Not reachable: ${r.error ?? r.message ?? 'unknown error'}`));
    return true;
  } catch (error) {
    target.replaceChildren();
    if (notice) fill(notice, error.message);
    throw error;
  }
}

/** The form to add a source (name null), edit one, or copy one under a new name. */
export function renderSourceForm(view, name, copy) {
  const editing = name !== null && !copy;
  const form = el('form', {class: 'card', novalidate: true});
  fill(view, heading(editing ? `Edit ${name}` : copy ? `Copy of ${name}` : 'Add a source'), form);
  const reload = () => renderSourceForm(view, name, copy);
  // The kinds come from the collector's kind registry: a kind added there shows here without a change.
  Promise.all([name ? get(`/api/v1/sources/${enc(name)}`) : Promise.resolve({body: {}}), get('/api/v1/presets'),
    get('/api/v1/kinds')])
    .then(([{body: source}, {body: presets}, {body: kinds}]) => buildForm(form, source, presets.map(p => p.name),
        kinds, editing, copy, name, reload))
    .catch(error => fill(form, el('p', {class: 'form-error'}, error.message)));
}

function buildForm(form, source, presetNames, kinds, editing, copy, originalName, reload) {
  const f = {
    name: input(copy ? `${source.name}-copy` : source.name, {required: true, disabled: editing}),
    connStr: input(source.connStr, {required: true, autocomplete: 'off', spellcheck: 'false'}),
    password: el('input', {type: 'password', autocomplete: 'new-password'}),
    kind: select(kinds.map(k => k.kind), source.kind ?? kinds[0]?.kind),
    group: input(source.group ?? 'default'),
    preset: select(['', ...presetNames], source.preset ?? ''),
    metrics: input(formatPairs(source.metrics), {placeholder: 'metric=seconds, …'}),
    standbyPreset: select(['', ...presetNames], source.standbyPreset ?? ''),
    standbyMetrics: input(formatPairs(source.standbyMetrics), {placeholder: 'metric=seconds, …'}),
    tags: input(formatPairs(source.tags), {placeholder: 'key=value, …'}),
    includePattern: input(source.includePattern),
    excludePattern: input(source.excludePattern),
  };
  const enabled = el('input', {type: 'checkbox', name: 'enabled', id: 'field-enabled', checked: source.enabled ?? true});
  const onlyIfPrimary = el('input', {type: 'checkbox', name: 'onlyIfPrimary', id: 'field-onlyIfPrimary',
    checked: source.onlyIfPrimary});
  // Sent back as read: a form that left it out would turn an operator's opt-in off on every save.
  const keepQueryLiterals = el('input', {type: 'checkbox', name: 'keepQueryLiterals', id: 'field-keepQueryLiterals',
    checked: source.keepQueryLiterals ?? false});
  const keepCommandSettings = el('input', {type: 'checkbox', name: 'keepCommandSettings',
    id: 'field-keepCommandSettings', checked: source.keepCommandSettings ?? false});
  const result = el('div', {id: 'test-result', role: 'status'});
  // How the chosen kind's connection string is written, as the kind registry describes it.
  const connStrHint = el('span', {id: 'hint-connStr'});
  const describeKind = () => {
    const kind = kinds.find(k => k.kind === f.kind.value);
    f.connStr.placeholder = kind?.connStrExample ?? '';
    fill(connStrHint, copy || editing
      ? 'The password shows as ********; keep it to use the stored one (same host, port, user and database) or type a new one.'
      : kind?.connStrHint ?? '');
  };
  f.kind.addEventListener('change', describeKind);
  describeKind();
  const request = () => ({
    name: f.name.value.trim(), connStr: f.connStr.value.trim(), password: f.password.value || undefined,
    kind: f.kind.value, group: f.group.value.trim() || undefined, enabled: enabled.checked,
    preset: f.preset.value || undefined, metrics: parsePairs(f.metrics.value, true),
    standbyPreset: f.standbyPreset.value || undefined, standbyMetrics: parsePairs(f.standbyMetrics.value, true),
    tags: parsePairs(f.tags.value, false), onlyIfPrimary: onlyIfPrimary.checked,
    keepQueryLiterals: keepQueryLiterals.checked, keepCommandSettings: keepCommandSettings.checked,
    includePattern: f.includePattern.value.trim() || undefined, excludePattern: f.excludePattern.value.trim() || undefined,
  });
  const testDraft = el('button', {type: 'button', id: 'test-draft', onclick: async () => {
    clearProblems(form);
    try { await testConnection(() => post('/api/v1/sources/test', {...request(), name: originalName ?? request().name}), result); }
    catch (error) { showProblems(form, error); }
  }}, 'Test connection');
  fill(form, el('p', {class: 'form-error', role: 'alert'}),
      field('Name', 'name', f.name),
      field('Connection string', 'connStr', f.connStr, connStrHint),
      field('Password (optional, replaces the one in the connection string)', 'password', f.password),
      field('Kind', 'kind', f.kind), field('Group', 'group', f.group),
      el('div', {class: 'field inline'}, enabled, el('label', {for: 'field-enabled'}, 'Enabled')),
      field('Preset', 'preset', f.preset), field('Custom intervals (seconds; 0 drops a preset metric)', 'metrics', f.metrics),
      field('Standby preset', 'standbyPreset', f.standbyPreset), field('Standby intervals', 'standbyMetrics', f.standbyMetrics),
      field('Tags', 'tags', f.tags),
      el('div', {class: 'field inline'}, onlyIfPrimary, el('label', {for: 'field-onlyIfPrimary'}, 'Only while primary')),
      el('div', {class: 'field inline'}, keepQueryLiterals, el('label', {for: 'field-keepQueryLiterals'},
          'Keep literals in query texts (off: constants are replaced by $n before anything is stored)')),
      el('div', {class: 'field inline'}, keepCommandSettings, el('label', {for: 'field-keepCommandSettings'},
          'Keep command settings such as archive_command (off: shown as ********; passwords in primary_conninfo are always removed)')),
      field('Include pattern (discovering kinds)', 'includePattern', f.includePattern),
      field('Exclude pattern (discovering kinds)', 'excludePattern', f.excludePattern),
      el('div', {class: 'actions'}, testDraft, el('button', {type: 'submit', id: 'save'}, 'Save')), result);
  let collectNothing = false;
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearProblems(form);
    const body = request();
    // Saved without a preset or an interval, a source connects and silently collects nothing.
    const selected = body.preset || Object.values(body.metrics).some(interval => interval !== 0);
    if (!selected && !addsMetrics(kinds, body.kind) && !collectNothing) {
      const error = form.querySelector('#error-preset');
      fill(error, 'Without a preset or custom intervals this source would collect nothing. Choose a preset or'
          + ' give intervals, or ', el('button', {type: 'button', id: 'save-anyway', onclick: () => {
        collectNothing = true;
        form.requestSubmit();
      }}, 'save it anyway'), '.');
      f.preset.setAttribute('aria-invalid', 'true');
      f.preset.scrollIntoView({block: 'center'});
      f.preset.focus();
      return;
    }
    try {
      // An edit is conditional on the version the form was filled from (check-and-set).
      if (editing) await put(`/api/v1/sources/${enc(originalName)}`, body, source.modifyIndex);
      else await post('/api/v1/sources', body);
      location.hash = `#/sources/${enc(editing ? originalName : body.name)}`;
    } catch (error) {
      showProblems(form, error, {what: `source ${originalName}`, reload});
    }
  });
  (editing ? f.connStr : f.name).focus();
}
