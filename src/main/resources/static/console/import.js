// Import pgwatch YAML: a dry run shows what would change per item, then apply.
import {el, fill, heading} from './dom.js';
import {call} from './api.js';
import {field, showProblems, clearProblems} from './form.js';

export function renderImport(view) {
  const file = el('input', {type: 'file', accept: '.yaml,.yml,text/yaml'});
  const keep = el('input', {type: 'checkbox', id: 'keep-built-ins'});
  const report = el('div', {id: 'import-report', role: 'status'});
  const apply = el('button', {type: 'button', id: 'apply', disabled: true}, 'Apply');
  const form = el('form', {class: 'card', novalidate: true}, el('p', {class: 'form-error', role: 'alert'}),
      field('pgwatch sources.yaml or metrics.yaml', 'body', file),
      el('div', {class: 'field inline'}, keep, el('label', {for: 'keep-built-ins'},
          'Keep pgharvest\'s built-in metrics and presets where names clash')),
      el('div', {class: 'actions'}, el('button', {type: 'submit', id: 'dry-run'}, 'Dry run'), apply), report);
  fill(view, heading('Import from pgwatch'), form);
  let text = null;
  const send = async dryRun => {
    clearProblems(form);
    report.replaceChildren();
    if (!file.files[0]) {
      showProblems(form, {message: 'Choose a file first.', errors: [{field: 'body', message: 'no file chosen'}]});
      return;
    }
    text = await file.files[0].text();
    try {
      const {body: r} = await call('POST', `/api/v1/import?dryRun=${dryRun}&keepBuiltIns=${keep.checked}`, undefined, {raw: text});
      fill(report, el('p', {id: 'import-summary'}, `${dryRun ? 'Would create' : 'Created'} ${r.created}, replace ${r.replaced},`
          + ` override ${r.overridden}; ${r.unchanged} unchanged.`),
      el('table', {class: 'cards'}, el('thead', {}, el('tr', {}, ['Type', 'Name', 'Action'].map(h => el('th', {scope: 'col'}, h)))),
          el('tbody', {}, (r.changes || []).map(c => el('tr', {}, el('td', {'data-label': 'Type'}, c.type),
              el('td', {'data-label': 'Name'}, c.name), el('td', {'data-label': 'Action'}, c.action))))),
      (r.notices || []).map(n => el('p', {class: 'notice'}, [n.location, n.field, n.message].filter(Boolean).join(': '))));
      apply.disabled = !dryRun ? true : false;
    } catch (error) {
      apply.disabled = true;
      showProblems(form, error);
    }
  };
  form.addEventListener('submit', event => { event.preventDefault(); send(true); });
  apply.addEventListener('click', () => send(false));
  file.addEventListener('change', () => { apply.disabled = true; });
}
