// The alerts firing and pending now (GET /api/v1/alerts), followed by one blocking query for the
// whole console, however many parts show them (the top bar, the overview, the Alerts page, a
// source's check-up): each part subscribes, and the query runs while anyone listens.
import {live} from './api.js';

export const SEVERITIES = ['critical', 'warning'];
const listeners = new Set();
let latest = null;
let failure = null;
let stop = null;

/**
 * Calls `listener(alerts, error)` with the alerts now (if known) and with every change; `error`
 * is the last failure of the query (null once it answers again). Returns the unsubscribe function.
 */
export function followAlerts(listener) {
  listeners.add(listener);
  if (latest || failure) listener(latest, failure);
  stop ??= live('/api/v1/alerts', alerts => {
    latest = alerts;
    failure = null;
    listeners.forEach(l => l(latest, null));
  }, {onError: error => { failure = error; listeners.forEach(l => l(latest, failure)); }});
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      stop?.();
      stop = null;
      latest = null;
      failure = null;
    }
  };
}

/** Firing alerts per severity: {critical: n, warning: n}, of `source` only when given. */
export function firingCounts(alerts, source) {
  const counts = Object.fromEntries(SEVERITIES.map(s => [s, 0]));
  for (const alert of alerts || []) {
    if (alert.state === 'firing' && (!source || alert.source === source)) {
      counts[alert.severity] = (counts[alert.severity] ?? 0) + 1;
    }
  }
  return counts;
}

/** Sorts by severity, worst first: critical counts outweigh any number of warnings. */
export const severityRank = counts => (counts.critical ?? 0) * 1e6 + (counts.warning ?? 0);

/** The badges of `counts` ("2 critical", "1 warning"), `el` being dom.js's; none for zero. */
export function countBadges(el, counts) {
  return SEVERITIES.filter(s => counts[s]).map(s => el('span', {class: `badge severity-${s}`,
    'data-severity': s, title: `${counts[s]} firing ${s} alert${counts[s] === 1 ? '' : 's'}`}, `${counts[s]} ${s}`));
}
