// The periods a source's alerts fired, for shading on its charts: from the alert history of the
// shown range (a firing and its resolution share the alert's fingerprint and startsAt) and the
// alerts firing now (to the present). Each period is drawn on the charts fed by its rule's metric;
// a period of a rule on instance_up (the source unreachable) on every chart.
import {get, enc} from './api.js';
import {followAlerts} from './alertfeed.js';

const SHADES = {critical: 'rgba(180, 35, 24, 0.14)', warning: 'rgba(161, 92, 0, 0.14)'};

/**
 * Calls `show(periods)` with the source's alert periods, each {rule, metric, severity, from, to}
 * (epoch ms; to null while it fires), for the range `range()` gives ({from, to} epoch ms), whenever
 * an alert changes, every 30 s and on `refresh()`. Returns {refresh, stop}.
 */
export function followAlertPeriods(name, range, show) {
  let metrics = null;
  let firing = [];
  let generation = 0;
  const rules = get('/api/v1/alert-rules').then(({body}) => {
    metrics = new Map(body.map(rule => [rule.name, rule.metric]));
  }).catch(() => { metrics = new Map(); });
  async function refresh() {
    const mine = ++generation;
    const {from, to} = range();
    try {
      await rules;
      const {body: history} = await get(`/api/v1/alerts/history?from=${enc(new Date(from).toISOString())}&to=${
        enc(new Date(Math.max(to, from + 1000)).toISOString())}`);
      if (mine !== generation) return;
      const spans = new Map();
      const span = (fingerprint, rule, severity, startsAt) => {
        const key = `${fingerprint}|${startsAt}`;
        if (!spans.has(key)) {
          spans.set(key, {rule, metric: metrics.get(rule) ?? null, severity, from: Date.parse(startsAt), to: to});
        }
        return spans.get(key);
      };
      for (const entry of history.filter(e => e.labels?.source === name)) {
        const period = span(entry.fingerprint, entry.alertname, entry.labels.severity, entry.startsAt);
        if (entry.state === 'resolved') period.to = Date.parse(entry.endsAt);
      }
      for (const alert of firing) span(alert.fingerprint, alert.alertname, alert.severity, alert.firingSince).to = null;
      show([...spans.values()]);
    } catch {
      // The charts stay as they are; the history's own failure shows on the Alerts page.
    }
  }
  const stopAlerts = followAlerts(alerts => {
    if (!alerts) return;
    firing = alerts.filter(a => a.source === name && a.state === 'firing');
    refresh();
  });
  const timer = setInterval(refresh, 30000);
  return {refresh, stop: () => { stopAlerts(); clearInterval(timer); }};
}

/** Whether `period` belongs on a chart reading `metrics`. */
export const periodApplies = (period, metrics) => period.metric === 'instance_up' || metrics.includes(period.metric);

/** A uPlot drawClear hook's work: shades `periods` across the plot area, under the lines. */
export function shadePeriods(u, periods) {
  if (!periods?.length) return;
  const {ctx, bbox} = u;
  const [min, max] = [u.scales.x.min, u.scales.x.max];
  ctx.save();
  for (const period of periods) {
    const start = Math.max(period.from / 1000, min);
    const end = Math.min((period.to ?? Date.now()) / 1000, max);
    if (!(end > start)) continue;
    const x0 = u.valToPos(start, 'x', true);
    const x1 = u.valToPos(end, 'x', true);
    ctx.fillStyle = SHADES[period.severity] ?? SHADES.warning;
    ctx.fillRect(x0, bbox.top, Math.max(1, x1 - x0), bbox.height);
  }
  ctx.restore();
}
