// The console's shell: log-in, navigation and the hash router. Each page is a module whose
// render(view, ...params) fills the view and returns a function that stops its live queries.
import {el, fill, ago} from './dom.js';
import {setToken, acceptToken, loggedIn, logOut, onLoggedOut, onReachability, get, ApiError} from './api.js';
import {renderOverview} from './overview.js';
import {renderSource, renderSourceForm} from './source.js';
import {renderQueries, renderStatement} from './queries.js';
import {renderMetrics, renderPresets} from './catalog.js';
import {renderSinks} from './sinks.js';
import {renderLogs} from './logs.js';
import {renderLogEvents} from './log-events.js';
import {renderImport} from './import.js';
import {renderSessions} from './sessions.js';
import {renderTables, renderIndexes} from './tables.js';
import {renderServer} from './server.js';
import {renderAlerts} from './alerts.js';
import {renderRules} from './rules.js';
import {followAlerts, firingCounts, countBadges} from './alertfeed.js';

const view = document.getElementById('view');
const nav = document.getElementById('nav');
const staleBanner = document.getElementById('stale-banner');
let stop = null;

// While the collector does not answer, every page keeps its last picture greyed out under a line
// that says since when; the first answer clears both.
let staleTimer = null;
onReachability(since => {
  clearInterval(staleTimer);
  view.classList.toggle('stale', since !== null);
  staleBanner.hidden = since === null;
  if (since === null) return;
  const say = () => fill(staleBanner, `The collector is not answering since ${since.toLocaleTimeString()} (`,
      el('time', {datetime: since.toISOString()}, ago(since.toISOString())),
      '): this page shows what it last said and updates again when the collector is back.');
  say();
  staleTimer = setInterval(say, 5000);
});

// The top bar's count of firing alerts by severity, while logged in (one query shared with the pages).
const alertCounts = document.getElementById('alert-counts');
let stopAlertCounts = null;
function showAlertCounts() {
  if (stopAlertCounts) return;
  stopAlertCounts = followAlerts((alerts, error) => {
    if (!alerts) {
      fill(alertCounts, error ? el('span', {class: 'badge', title: `Alerts unknown: ${error.message}`}, '?') : '');
      return;
    }
    const counts = firingCounts(alerts);
    const badges = countBadges(el, counts);
    fill(alertCounts, badges.length ? badges : el('span', {class: 'badge severity-none', title: 'No alert is firing'}, '0'));
  });
}
function hideAlertCounts() {
  stopAlertCounts?.();
  stopAlertCounts = null;
  alertCounts.replaceChildren();
}

const routes = [
  [/^\/(?:\?(.*))?$/, (v, query) => renderOverview(v, query)],
  [/^\/sources\/new$/, (v) => renderSourceForm(v, null)],
  [/^\/sources\/([^/]+)\/edit$/, (v, name) => renderSourceForm(v, name, false)],
  [/^\/sources\/([^/]+)\/copy$/, (v, name) => renderSourceForm(v, name, true)],
  [/^\/sources\/([^/]+)\/queries$/, renderQueries],
  [/^\/sources\/([^/]+)\/log$/, renderLogEvents],
  [/^\/sources\/([^/]+)\/sessions$/, renderSessions],
  [/^\/sources\/([^/]+)\/tables$/, renderTables],
  [/^\/sources\/([^/]+)\/indexes$/, renderIndexes],
  [/^\/sources\/([^/]+)\/server$/, renderServer],
  [/^\/sources\/([^/]+)\/queries\/([^/]+)$/, renderStatement],
  [/^\/sources\/([^/]+)$/, renderSource],
  [/^\/metrics$/, renderMetrics],
  [/^\/presets$/, renderPresets],
  [/^\/sinks$/, renderSinks],
  [/^\/logs$/, renderLogs],
  [/^\/import$/, renderImport],
  [/^\/alerts$/, renderAlerts],
  [/^\/alert-rules$/, renderRules],
];

function route() {
  stop?.();
  stop = null;
  if (!loggedIn()) {
    showLogin();
    return;
  }
  nav.hidden = false;
  showAlertCounts();
  const full = location.hash.replace(/^#/, '') || '/';
  // A page's query (?last=6h, ?from=…&to=…: range.js) is its own to read; only a route that names
  // a query in its pattern (the overview's filter) is matched with it.
  const path = full.split('?')[0];
  for (const [pattern, render] of routes) {
    const match = pattern.exec(pattern.source.includes('\\?') ? full : path);
    if (match) {
      stop = render(view, ...match.slice(1).map(decodeURIComponent)) || null;
      const title = view.querySelector('h1');
      document.title = `${title ? title.textContent + ' · ' : ''}pgharvest`;
      nav.querySelectorAll('a').forEach(a => a.toggleAttribute('aria-current', a.getAttribute('href') === `#${path}`));
      return;
    }
  }
  fill(view, el('h1', {}, 'Not found'), el('p', {}, 'No page at ', path));
}

function showLogin() {
  nav.hidden = true;
  hideAlertCounts();
  const tokenInput = el('input', {type: 'password', id: 'token', name: 'token', autocomplete: 'off', required: true,
    'aria-describedby': 'token-error', spellcheck: 'false'});
  const fileInput = el('input', {type: 'file', id: 'token-file', 'aria-label': 'Token file'});
  const error = el('p', {class: 'field-error', id: 'token-error', role: 'alert'});
  const form = el('form', {class: 'login card', onsubmit: async event => {
    event.preventDefault();
    setToken(tokenInput.value.trim());
    try {
      await get('/api/v1/status');
      acceptToken();
      route();
    } catch (failure) {
      logOut();
      fill(error, failure instanceof ApiError && failure.status === 401
          ? 'That is not the API token of this pgharvest.' : `Cannot reach the API: ${failure.message}`);
      tokenInput.focus();
    }
  }},
  el('h1', {}, 'Log in'),
  el('p', {}, 'Paste the API token (pgharvest.api.token, or the content of <data-dir>/api-token) or choose the token file. '
      + 'It is kept in this tab\'s memory only: a reload asks for it again.'),
  el('div', {class: 'field'}, el('label', {for: 'token'}, 'API token'), tokenInput, error),
  el('div', {class: 'field'}, el('label', {for: 'token-file'}, 'or the token file'), fileInput),
  el('button', {type: 'submit', id: 'login'}, 'Log in'));
  fileInput.addEventListener('change', async () => {
    const file = fileInput.files[0];
    if (file) {
      tokenInput.value = (await file.text()).trim();
      form.requestSubmit();
    }
  });
  fill(view, form);
  tokenInput.focus();
}

document.getElementById('logout').addEventListener('click', () => { logOut(); });
onLoggedOut(() => route());
window.addEventListener('hashchange', route);
route();
