// Metrics and presets: list, search, create, edit, delete, and which sources use each.
import {el, fill, heading} from './dom.js';
import {get, post, put, del, live, enc, isStale} from './api.js';
import {field, input, textarea, select, showProblems, clearProblems, parsePairs, formatPairs} from './form.js';
import {usage} from './usage.js';

/** A searchable list page with an editor panel; `kind` is 'metrics' or 'presets'. */
function catalogPage(view, kind, title, describe, editor) {
  const search = el('input', {type: 'search', id: 'catalog-search', placeholder: `Search ${kind}`,
    'aria-label': `Search ${kind}`, oninput: () => draw()});
  const list = el('tbody', {id: `${kind}-list`});
  const panel = el('div', {id: 'editor'});
  let items = [], used = {metrics: {}, presets: {}};
  fill(view, heading(title, el('button', {type: 'button', id: 'create', onclick: () => editor(panel, null, reload)},
      kind === 'metrics' ? 'New metric' : 'New preset')), panel, el('div', {class: 'toolbar'}, search),
  el('div', {class: 'table-wrap'}, el('table', {class: 'cards'}, el('thead', {}, el('tr', {},
      ['Name', 'Details', 'Used by', ''].map(h => el('th', {scope: 'col'}, h)))), list)));

  function draw() {
    const text = search.value.toLowerCase();
    fill(list, items.filter(i => !text || i.name.toLowerCase().includes(text)
        || (i.description || '').toLowerCase().includes(text)).map(item => {
      const users = [...(used[kind][item.name] || [])].sort();
      return el('tr', {'data-name': item.name},
          el('td', {'data-label': 'Name'}, el('strong', {}, item.name), item.builtIn ? el('small', {},
              item.overridden ? ' built-in, overridden' : ' built-in') : null),
          el('td', {'data-label': 'Details'}, describe(item)),
          // A count and a link to the overview showing just those sources: a list of 1,000 names made
          // the page tens of thousands of pixels tall.
          el('td', {'data-label': 'Used by'}, users.length ? el('a', {href: `#/?using=${kind === 'metrics' ? 'metric' : 'preset'}:${
            enc(item.name)}`}, `${users.length} ${users.length === 1 ? 'source' : 'sources'}`) : el('small', {}, 'no source')),
          el('td', {}, el('button', {type: 'button', onclick: () => editor(panel, item, reload)}, 'Edit'), ' ',
              // A built-in item cannot be deleted, so it offers no delete; an override can only be reverted.
              item.builtIn && !item.overridden ? null : el('button', {type: 'button', class: item.overridden ? '' : 'danger',
                onclick: event => confirmDelete(event.target, kind, item, reload)},
              item.overridden ? 'Revert to built-in' : 'Delete')));
    }));
  }
  async function reload() {
    const [{body: all}, {body: sources}, {body: presets}] = await Promise.all([get(`/api/v1/${kind}`),
      get('/api/v1/sources'), get('/api/v1/presets')]);
    items = all;
    used = usage(sources, presets);
    draw();
  }
  return live(`/api/v1/${kind}`, () => reload());
}

function confirmDelete(button, kind, item, reload) {
  const box = el('span', {class: 'confirm', role: 'alertdialog'}, `Delete ${item.name}? `,
      el('button', {type: 'button', class: 'danger', onclick: async () => {
        try { await del(`/api/v1/${kind}/${enc(item.name)}`, item.modifyIndex); await reload(); }
        catch (error) {
          fill(box, isStale(error) ? `Not deleted: ${item.name} was changed by someone else after this page showed it.`
            : error.message);
        }
      }}, 'Delete'),
      el('button', {type: 'button', onclick: () => box.replaceWith(button)}, 'Cancel'));
  button.replaceWith(box);
  box.querySelector('button').focus();
}

export function renderMetrics(view) {
  return catalogPage(view, 'metrics', 'Metrics', m => [
    m.native ? `native ${m.native}` : `SQL for ${Object.keys(m.sqls || {}).map(v => `${v}+`).join(', ')}`,
    m.instanceLevel ? ', instance-level' : '', m.nodeStatus && m.nodeStatus !== 'any' ? `, ${m.nodeStatus} only` : '',
    m.storageName ? `, stored as ${m.storageName}` : '', m.description ? el('div', {}, el('small', {}, m.description)) : null,
  ], metricEditor);
}

export function renderPresets(view) {
  return catalogPage(view, 'presets', 'Presets', p => [formatPairs(p.metrics),
    p.description ? el('div', {}, el('small', {}, p.description)) : null], presetEditor);
}

/** Opens `editor` again on the item as the API has it now (after a stale write). */
function reopen(kind, editor, panel, name, reload) {
  return async () => {
    const {body: fresh} = await get(`/api/v1/${kind}/${enc(name)}`);
    editor(panel, fresh, reload);
  };
}

function editorForm(panel, title, fields, save, stale) {
  const form = el('form', {class: 'card', novalidate: true}, el('h2', {}, title),
      el('p', {class: 'form-error', role: 'alert'}), fields,
      el('div', {class: 'actions'}, el('button', {type: 'submit', id: 'save'}, 'Save'),
          el('button', {type: 'button', onclick: () => panel.replaceChildren()}, 'Cancel')));
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearProblems(form);
    try { await save(); panel.replaceChildren(); }
    catch (error) { showProblems(form, error, stale); }
  });
  fill(panel, form);
  form.querySelector('input, textarea')?.focus();
  return form;
}

function metricEditor(panel, metric, reload) {
  const m = metric || {sqls: {14: ''}, gauges: ['*'], nodeStatus: 'any'};
  const name = input(m.name, {disabled: Boolean(metric)});
  const versions = el('div', {class: 'versions'});
  const addVersion = (version, sql) => versions.append(field(`SQL for PostgreSQL ${version} and later`,
      `sqls.${version}`, textarea(sql, {rows: 6, spellcheck: 'false', 'data-version': version})));
  Object.entries(m.sqls || {}).forEach(([v, sql]) => addVersion(v, sql));
  const newVersion = el('input', {type: 'number', min: 9, max: 99, 'aria-label': 'New version', class: 'short'});
  const f = {description: input(m.description), gauges: input((m.gauges || []).join(', ')),
    storageName: input(m.storageName), nodeStatus: select(['any', 'primary', 'standby'], m.nodeStatus ?? 'any'),
    statementTimeoutSeconds: input(m.statementTimeoutSeconds ?? '', {type: 'number', min: 1})};
  const instanceLevel = el('input', {type: 'checkbox', id: 'field-instanceLevel', name: 'instanceLevel',
    checked: m.instanceLevel});
  editorForm(panel, metric ? `Edit metric ${metric.name}` : 'New metric', [
    field('Name', 'name', name), field('Description', 'description', f.description),
    el('p', {class: 'field-error', 'data-field': 'sqls'}), versions,
    el('div', {class: 'field inline'}, newVersion, el('button', {type: 'button', onclick: () => {
      if (newVersion.value && !versions.querySelector(`[data-version="${CSS.escape(newVersion.value)}"]`)) {
        addVersion(newVersion.value, '');
      }
    }}, 'Add SQL for a version')),
    field('Gauge columns (comma separated, * for all)', 'gauges', f.gauges),
    field('Storage name', 'storageName', f.storageName), field('Node status', 'nodeStatus', f.nodeStatus),
    field('Statement timeout (seconds)', 'statementTimeoutSeconds', f.statementTimeoutSeconds),
    el('div', {class: 'field inline'}, instanceLevel, el('label', {for: 'field-instanceLevel'}, 'Instance-level')),
  ], async () => {
    const sqls = {};
    versions.querySelectorAll('textarea').forEach(area => { if (area.value.trim()) sqls[area.dataset.version] = area.value; });
    const body = {...(metric ? Object.fromEntries(Object.entries(metric).filter(([k]) =>
      !['builtIn', 'overridden', 'modifyIndex'].includes(k))) : {}),
    name: name.value.trim(), description: f.description.value || undefined, sqls,
    gauges: f.gauges.value.split(',').map(s => s.trim()).filter(Boolean), storageName: f.storageName.value || undefined,
    nodeStatus: f.nodeStatus.value, instanceLevel: instanceLevel.checked,
    statementTimeoutSeconds: f.statementTimeoutSeconds.value ? Number(f.statementTimeoutSeconds.value) : undefined};
    if (metric) await put(`/api/v1/metrics/${enc(metric.name)}`, body, metric.modifyIndex);
    else await post('/api/v1/metrics', body);
    await reload();
  }, metric && {what: `metric ${metric.name}`, reload: reopen('metrics', metricEditor, panel, metric.name, reload)});
}

function presetEditor(panel, preset, reload) {
  const name = input(preset?.name, {disabled: Boolean(preset)});
  const description = input(preset?.description);
  const metrics = textarea(formatPairs(preset?.metrics), {placeholder: 'metric=seconds, …'});
  editorForm(panel, preset ? `Edit preset ${preset.name}` : 'New preset', [field('Name', 'name', name),
    field('Description', 'description', description), field('Metrics and intervals (seconds)', 'metrics', metrics)],
  async () => {
    const body = {name: name.value.trim(), description: description.value || undefined,
      metrics: parsePairs(metrics.value, true)};
    if (preset) await put(`/api/v1/presets/${enc(preset.name)}`, body, preset.modifyIndex);
    else await post('/api/v1/presets', body);
    await reload();
  }, preset && {what: `preset ${preset.name}`, reload: reopen('presets', presetEditor, panel, preset.name, reload)});
}
