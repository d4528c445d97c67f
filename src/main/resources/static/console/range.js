// The time range a page shows, kept in the URL's hash query so a link shows the same picture:
// ?last=6h (a span up to now) or ?from=…&to=… (RFC 3339, an absolute range), and &compare=1d|7d
// (an overlay of the same span a day or a week earlier). Within the recent window a relative range
// is read live through the window's blocking query (span=); beyond it, and for an absolute range,
// the API is asked for from/to and answers from the store that holds them.
import {el} from './dom.js';

export const RELATIVE = [['15m', 900], ['1h', 3600], ['6h', 21600], ['24h', 86400], ['7d', 604800], ['30d', 2592000]];
const COMPARES = [['', 'no comparison'], ['1d', 'a day earlier'], ['7d', 'a week earlier']];
const SHIFTS = {'1d': 86400000, '7d': 604800000};
export const DEFAULT_LAST = '15m';

/** Seconds of a relative range such as 15m, 6h or 7d; null when it is not one. */
export function lastSeconds(last) {
  const m = /^(\d+)([smhd])$/.exec(last || '');
  return m ? +m[1] * {s: 1, m: 60, h: 3600, d: 86400}[m[2]] : null;
}

/** The range the URL holds: {last} or {from, to} (Dates), with compare ('', '1d' or '7d'). */
export function rangeFromUrl() {
  const params = new URLSearchParams(location.hash.split('?')[1] || '');
  const compare = SHIFTS[params.get('compare')] ? params.get('compare') : '';
  const from = Date.parse(params.get('from') || '');
  const to = Date.parse(params.get('to') || '');
  if (!Number.isNaN(from) && !Number.isNaN(to) && from < to) return {from: new Date(from), to: new Date(to), compare};
  const last = lastSeconds(params.get('last')) ? params.get('last') : DEFAULT_LAST;
  return {last, compare};
}

/** Puts `range` into the URL as a new history entry, without rendering the page again (no hashchange). */
export function rangeToUrl(range) {
  const path = location.hash.split('?')[0] || '#/';
  const params = new URLSearchParams();
  if (range.from) {
    params.set('from', range.from.toISOString());
    params.set('to', range.to.toISOString());
  } else if (range.last !== DEFAULT_LAST) {
    params.set('last', range.last);
  }
  if (range.compare) params.set('compare', range.compare);
  const query = params.toString();
  const hash = query ? `${path}?${query}` : path;
  if (hash !== location.hash) history.pushState(null, '', hash);
}

/**
 * The hash query (from=…&to=…) of `minutes` either side of `instant` (ISO-8601): appended to a page
 * with charts, a link shows that moment on them. '' for an instant that does not parse.
 */
export function rangeAround(instant, minutes = 15) {
  const at = Date.parse(instant || '');
  if (Number.isNaN(at)) return '';
  const params = new URLSearchParams({from: new Date(at - minutes * 60000).toISOString(),
    to: new Date(at + minutes * 60000).toISOString()});
  return params.toString();
}

/** The range's bounds now, epoch milliseconds. */
export function bounds(range, now = Date.now()) {
  return range.from ? {from: range.from.getTime(), to: range.to.getTime()}
    : {from: now - lastSeconds(range.last) * 1000, to: now};
}

/** How far back the compare overlay is shifted, ms (0 without one). */
export function compareShift(range) {
  return SHIFTS[range.compare] || 0;
}

/**
 * What to ask the API for `range`: {query, live}. A relative range within the window
 * (`windowSeconds`) is `span=` and live; anything else, or the range shifted back by `shift` ms for
 * the compare overlay, is `from=&to=`.
 */
export function apiQuery(range, windowSeconds, shift = 0) {
  if (!range.from && !shift && lastSeconds(range.last) <= windowSeconds) {
    return {query: `span=${range.last}`, live: true};
  }
  const {from, to} = bounds(range);
  return {query: `from=${new Date(from - shift).toISOString()}&to=${new Date(to - shift).toISOString()}`, live: false};
}

/** A range in words for the toolbar and charts: "last 6h" or "from … to …" in local time. */
export function describe(range) {
  return range.from ? `${range.from.toLocaleString()} – ${range.to.toLocaleString()}` : `last ${range.last}`;
}

/** The compare choice in words ("a day earlier"), or ''. */
export function compareWords(compare) {
  return compare ? COMPARES.find(([value]) => value === compare)[1] : '';
}

/**
 * The range toolbar: the relative choices, a from/to picker (local time) and, when `compare` is
 * offered, the overlay choice. `onChange(range)` gets every choice, already put into the URL.
 * Returns {element, show(range)} (show: reflect a range chosen elsewhere, such as a drag-zoom).
 */
export function rangeControls(initial, {prefix, compare = false, onChange}) {
  let range = initial;
  const lastSelect = el('select', {id: `${prefix}-range`, 'aria-label': 'Range'},
      RELATIVE.map(([value]) => el('option', {value}, `last ${value}`)), el('option', {value: 'custom'}, 'from … to …'));
  const fromInput = el('input', {type: 'datetime-local', id: `${prefix}-from`, 'aria-label': 'From', step: 1});
  const toInput = el('input', {type: 'datetime-local', id: `${prefix}-to`, 'aria-label': 'To', step: 1});
  const error = el('span', {class: 'field-error', id: `${prefix}-range-error`, role: 'alert'});
  const apply = el('button', {type: 'button', id: `${prefix}-apply`}, 'Show');
  const picker = el('span', {class: 'range-picker'}, fromInput, ' to ', toInput, apply, error);
  const compareSelect = compare ? el('select', {id: `${prefix}-compare`, 'aria-label': 'Compare with'},
      COMPARES.map(([value, words]) => el('option', {value}, words))) : null;
  const changed = next => {
    range = next;
    rangeToUrl(range);
    show(range);
    onChange(range);
  };
  lastSelect.addEventListener('change', () => {
    if (lastSelect.value === 'custom') {
      picker.hidden = false;
      const {from, to} = bounds(range);
      fromInput.value = localInput(new Date(from));
      toInput.value = localInput(new Date(to));
      fromInput.focus();
    } else {
      changed({last: lastSelect.value, compare: range.compare});
    }
  });
  apply.addEventListener('click', () => {
    const from = new Date(fromInput.value);
    const to = new Date(toInput.value);
    if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from >= to) {
      error.textContent = 'Give a start before the end.';
      return;
    }
    error.textContent = '';
    changed({from, to, compare: range.compare});
  });
  compareSelect?.addEventListener('change', () => changed({...range, compare: compareSelect.value}));
  function show(shown) {
    range = shown;
    // A span from a link (?last=5m) that is not one of the choices is still named, in its place by length.
    if (!shown.from && ![...lastSelect.options].some(option => option.value === shown.last)) {
      const after = [...lastSelect.options].find(option => option.value === 'custom'
        || lastSeconds(option.value) > lastSeconds(shown.last));
      lastSelect.insertBefore(el('option', {value: shown.last}, `last ${shown.last}`), after);
    }
    lastSelect.value = shown.from ? 'custom' : shown.last;
    picker.hidden = !shown.from;
    if (shown.from) {
      fromInput.value = localInput(shown.from);
      toInput.value = localInput(shown.to);
    }
    if (compareSelect) compareSelect.value = shown.compare;
  }
  show(range);
  const element = el('div', {class: 'toolbar range', role: 'group', 'aria-label': 'Time range'},
      lastSelect, picker, compareSelect ? el('label', {class: 'inline'}, 'compare ', compareSelect) : null);
  return {element, show};
}

/** A Date as a datetime-local input's value (local time, to the second). */
function localInput(date) {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60000);
  return local.toISOString().slice(0, 19);
}

/**
 * Where a chart's data came from, in words: the store(s) that answered its series and the
 * resolution (the answer's step, else the interval its points show).
 */
export function provenance(series, step) {
  const stores = [...new Set(series.map(s => s.store).filter(Boolean))];
  const seconds = stepSeconds(step) ?? typicalInterval(series);
  return {stores, seconds, text: `${stores.join(' + ') || 'window'}${seconds ? ` · every ${formatStep(seconds)}` : ''}`};
}

function stepSeconds(step) {
  if (typeof step === 'number') return step;
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$/.exec(step || '');
  return m ? (+(m[1] || 0)) * 3600 + (+(m[2] || 0)) * 60 + (+(m[3] || 0)) : null;
}

/** The median gap between the points of the series with most points, seconds. */
function typicalInterval(series) {
  const longest = series.reduce((best, s) => (s.times?.length ?? 0) > (best?.times?.length ?? 0) ? s : best, null);
  if (!longest || longest.times.length < 2) return null;
  const gaps = longest.times.slice(1).map((t, i) => t - longest.times[i]).sort((a, b) => a - b);
  return Math.round(gaps[gaps.length >> 1] / 1000);
}

function formatStep(seconds) {
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['min', 60]]) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size} ${unit}`;
  }
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

/**
 * An answer's error as the parts about `metrics`: a store names each metric it could not read
 * ("postgres: db_stats: …; backends: …"); an error that names none is kept whole.
 */
function errorParts(store, error, metrics) {
  const text = error.startsWith(`${store}: `) ? error.slice(store.length + 2) : error;
  const parts = text.split(/; (?=[a-z_][a-z0-9_]*: )/);
  const named = parts.map(part => [/^([a-z_][a-z0-9_]*): /.exec(part)?.[1], part]);
  if (!metrics || named.some(([metric]) => !metric)) return [{store, message: text}];
  return named.filter(([metric]) => metrics.includes(metric)).map(([, part]) => ({store, message: part}));
}

/**
 * The errors of stores that did not answer, each {store, message}: the answer's own `error` (its
 * `store` slow or down), series that carry one, and an answer's `errors` list.
 */
export function storeErrors(answer, metrics) {
  const found = answer?.error ? errorParts(answer.store || 'store', answer.error, metrics) : [];
  for (const s of answer?.series ?? []) {
    if (s.error && (!metrics || metrics.includes(s.metric))) found.push({store: s.store || 'store', message: s.error});
  }
  for (const e of answer?.errors ?? []) {
    if (!metrics || !e.metric || metrics.includes(e.metric)) {
      found.push({store: e.store || 'store', message: e.error || e.message || e.detail || String(e)});
    }
  }
  const seen = new Set();
  return found.filter(e => !seen.has(`${e.store}\n${e.message}`) && seen.add(`${e.store}\n${e.message}`));
}
