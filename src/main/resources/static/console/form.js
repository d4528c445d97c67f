// Forms whose API errors (problem details) appear next to the field they name.
import {el, fill} from './dom.js';
import {isStale} from './api.js';

/**
 * What a page says when its write was refused because someone else changed the item first
 * (409 stale-index): that nothing was saved, and a button to load the item as it is now.
 */
export function staleNotice(what, error, reload) {
  const current = error.problem?.modifyIndex;
  return el('span', {class: 'stale-notice'},
      `Not saved: ${what} was changed by someone else after you opened it`,
      current ? ` (it is now at change ${current})` : '', '. ',
      reload ? el('button', {type: 'button', class: 'reload-stale', onclick: reload}, `Reload ${what}`) : null);
}
/** A labelled input with a place for its error; `name` is the API's field name. */
export function field(label, name, input, hint) {
  input.name = name;
  input.id = `field-${name}`;
  const error = el('p', {class: 'field-error', 'data-field': name, id: `error-${name}`, role: 'alert'});
  input.setAttribute('aria-describedby', error.id);
  return el('div', {class: 'field'}, el('label', {for: input.id}, label), input,
      hint ? el('small', {}, hint) : null, error);
}

export const input = (value, attributes = {}) => el('input', {type: 'text', value: value ?? '', ...attributes});
export const textarea = (value, attributes = {}) => {
  const area = el('textarea', {rows: 4, ...attributes});
  area.value = value ?? '';
  return area;
};
export function select(options, chosen) {
  return el('select', {}, options.map(option => el('option', {value: option, selected: option === chosen}, option)));
}

/** Clears the errors shown in `form`. */
export function clearProblems(form) {
  form.querySelectorAll('.field-error, .form-error').forEach(node => node.replaceChildren());
  form.querySelectorAll('[aria-invalid]').forEach(node => node.removeAttribute('aria-invalid'));
}

/**
 * Shows an API error: each of its field errors next to the field it names (sqls.14 next to sqls,
 * metrics.foo next to metrics), the rest (and the detail) at the top of the form.
 */
export function showProblems(form, error, stale) {
  const {what = 'this item', reload} = stale || {};
  clearProblems(form);
  const general = form.querySelector('.form-error');
  if (isStale(error) && general) {
    fill(general, staleNotice(what, error, reload));
    general.scrollIntoView({block: 'nearest'});
    general.querySelector('button')?.focus();
    return;
  }
  const unplaced = [];
  // A duplicate name has no field in the problem (409 duplicate): it belongs next to the name.
  const errors = error.errors?.length || !/\/duplicate$/.test(String(error.problem?.type || ''))
    ? error.errors || [] : [{field: 'name', message: error.message}];
  for (const problem of errors) {
    const name = String(problem.field || '');
    const target = form.querySelector(`.field-error[data-field="${CSS.escape(name)}"]`)
        || form.querySelector(`.field-error[data-field="${CSS.escape(name.split(/[.[]/)[0])}"]`);
    if (target) {
      target.append(el('span', {}, name.includes('.') ? `${name}: ${problem.message}` : problem.message));
      form.querySelector(`[name="${CSS.escape(target.dataset.field)}"]`)?.setAttribute('aria-invalid', 'true');
    } else {
      unplaced.push(`${name}: ${problem.message}`);
    }
  }
  if (general && errors !== error.errors) fill(general, unplaced.map(text => el('div', {}, text)));
  else if (general) fill(general, error.message, unplaced.map(text => el('div', {}, text)));
  // The user's eyes go where the focus goes: the first invalid field, else the form's own error.
  const first = form.querySelector('[aria-invalid="true"]');
  const shown = first || general;
  if (shown === general && general) general.setAttribute('tabindex', '-1');
  shown?.scrollIntoView({block: 'center'});
  shown?.focus();
}

/** "a=1, b=2" <-> {a: 1, b: 2}; values are numbers when `numbers`. */
export function parsePairs(text, numbers) {
  const result = {};
  for (const part of text.split(/[,\n]/).map(s => s.trim()).filter(Boolean)) {
    const at = part.indexOf('=');
    const key = (at < 0 ? part : part.slice(0, at)).trim();
    const value = at < 0 ? '' : part.slice(at + 1).trim();
    result[key] = numbers ? (value === '' || isNaN(Number(value)) ? value : Number(value)) : value;
  }
  return result;
}

export const formatPairs = map => Object.entries(map || {}).map(([k, v]) => `${k}=${v}`).join(', ');
