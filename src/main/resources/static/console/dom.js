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
