// DOM helpers. Every value reaches the page as text (textContent, attribute values, form values),
// never as markup: a source named <img src=x onerror=alert(1)> shows as those characters.

/** el('td', {class: 'x', onclick: fn}, child, 'text', ...): an element with attributes, listeners and children. */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'value') element.value = value;
    else if (name === 'checked') element.checked = Boolean(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(parent, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `parent`. */
export function fill(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
  return parent;
}

/** Seconds from an ISO-8601 duration (PT1.5S, PT2M) or a number of seconds. */
export function seconds(duration) {
  if (duration === null || duration === undefined) return null;
  if (typeof duration === 'number') return duration;
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$/.exec(duration);
  return m ? (+(m[1] || 0)) * 3600 + (+(m[2] || 0)) * 60 + (+(m[3] || 0)) : null;
}

export function formatDuration(duration) {
  const s = seconds(duration);
  if (s === null) return '';
  return s < 1 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(s < 10 ? 2 : 0)} s`;
}

/** "12 s ago" for an ISO instant; the full time is in the element's title. */
export function ago(instant, now = Date.now()) {
  if (!instant) return '';
  const s = Math.max(0, Math.round((now - Date.parse(instant)) / 1000));
  if (s < 120) return `${s} s ago`;
  if (s < 7200) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

export function timeCell(instant) {
  return el('time', {datetime: instant || undefined, title: instant || undefined}, ago(instant));
}

export function heading(text, ...extra) {
  return el('div', {class: 'heading'}, el('h1', {}, text), ...extra);
}

/** Keeps the "… ago" text of every <time datetime> in `container` current; returns a stop function. */
export function keepAgesCurrent(container, every = 5000) {
  const timer = setInterval(() => {
    const now = Date.now();
    container.querySelectorAll('time[datetime]').forEach(time => {
      const text = ago(time.getAttribute('datetime'), now);
      if (time.textContent !== text) time.textContent = text;
    });
  }, every);
  return () => clearInterval(timer);
}

/**
 * Makes `target` look like `fresh` while keeping every node whose content did not change, so a
 * live update never takes the focus, a selection or a scroll position from the user. Elements of
 * the same tag are kept and updated in place (attributes, then children, recursively); form
 * controls and buttons are kept only when equal, since their listeners were made for their data
 * (give them a data- attribute of what their listener depends on).
 */
export function morph(target, fresh) {
  const controls = /^(INPUT|BUTTON|SELECT|TEXTAREA)$/;
  for (const name of target.getAttributeNames()) {
    if (!fresh.hasAttribute(name)) target.removeAttribute(name);
  }
  for (const name of fresh.getAttributeNames()) {
    if (target.getAttribute(name) !== fresh.getAttribute(name)) target.setAttribute(name, fresh.getAttribute(name));
  }
  const wanted = [...fresh.childNodes];
  let at = target.firstChild;
  for (const node of wanted) {
    if (at && at.isEqualNode(node)) {
      at = at.nextSibling;
    } else if (at && at.nodeType === Node.ELEMENT_NODE && node.nodeType === Node.ELEMENT_NODE
        && at.tagName === node.tagName && !controls.test(at.tagName)) {
      morph(at, node);
      at = at.nextSibling;
    } else if (at && at.nodeType === Node.TEXT_NODE && node.nodeType === Node.TEXT_NODE) {
      at.data = node.data;
      at = at.nextSibling;
    } else {
      target.insertBefore(node, at);
    }
  }
  while (at) {
    const next = at.nextSibling;
    at.remove();
    at = next;
  }
  return target;
}

/** Puts `nodes` into `parent` in that order, moving only what is out of place (focus stays where nothing moved). */
export function place(parent, nodes) {
  // Moving a node takes the focus from anything inside it: given back below, without scrolling.
  const focused = parent.contains(document.activeElement) ? document.activeElement : null;
  let at = parent.firstChild;
  for (const node of nodes) {
    if (node === at) {
      at = at.nextSibling;
    } else {
      parent.insertBefore(node, at);
    }
  }
  while (at) {
    const next = at.nextSibling;
    at.remove();
    at = next;
  }
  if (focused && focused.isConnected && document.activeElement !== focused) focused.focus({preventScroll: true});
}

/**
 * Rows that outlive live updates: `rows(items)` gives each item's row, the same node as last time
 * for an item of the same `identity` (updated in place by morph when `build` makes it differently),
 * so place() moves nothing that stayed and a focus or a text selection in it survives. Rows of
 * items no longer given are forgotten.
 */
export function keptRows(identity, build) {
  let kept = new Map();
  return items => {
    const next = new Map();
    const rows = items.map(item => {
      const id = identity(item);
      const key = JSON.stringify(item);
      const known = kept.get(id) ?? next.get(id);
      if (known && known.key !== key) {
        morph(known.row, build(item));
        known.key = key;
      }
      const entry = known ?? {key, row: build(item)};
      next.set(id, entry);
      return entry.row;
    });
    kept = next;
    return rows;
  };
}
