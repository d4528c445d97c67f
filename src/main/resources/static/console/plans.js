// A statement's generic plans on its page (the `plans` of GET /api/v1/sources/{name}/queries/{queryid}):
// each drawn as an indented tree of text lines, when it was read, and a mark when its shape hash
// changed within the window. Plans come from the monitored database (table, index and column names
// are its own), so every part reaches the page as text, never as markup.
import {el, fill} from './dom.js';
import {get, enc} from './api.js';

const NO_PLAN = 'No plan in the window yet: query_plans plans a database\'s top plain reads (SELECT) at most once per '
  + 'pgharvest.query-insights.plan-every (a day by default), as a role that may read their tables.';
/** Plan fields shown under a node, in this order, when the node has them. */
const DETAILS = ['Index Cond', 'Recheck Cond', 'Hash Cond', 'Merge Cond', 'Join Filter', 'Filter', 'One-Time Filter',
  'TID Cond', 'Sort Key', 'Presorted Key', 'Group Key', 'Hash Key', 'Cache Key', 'Function Call', 'Run Condition'];

/** The Plans section: {section, show(plans)}; show redraws only when a plan, its time or its mark moved. */
export function planSection() {
  const list = el('div', {id: 'statement-plans'});
  const empty = el('p', {class: 'empty'}, NO_PLAN);
  let shownKey = null;
  function show(plans) {
    const key = JSON.stringify(plans.map(p => [p.dbname, p.hash, p.readAt, p.changedAt, p.omitted]));
    if (key === shownKey) return;
    shownKey = key;
    fill(list, plans.map(plan => planArticle(plan, plans.length > 1)));
    empty.hidden = plans.length > 0;
  }
  return {section: el('section', {}, el('h2', {}, 'Plans'), empty, list), show};
}

function planArticle(plan, named) {
  return el('article', {class: 'plan', 'data-dbname': plan.dbname, 'data-hash': plan.hash},
      named ? el('h3', {}, `Database ${plan.dbname}`) : null,
      plan.changedAt ? el('p', {class: 'plan-changed', role: 'status'}, 'Plan changed ', timeOf(plan.changedAt),
          `: shape ${plan.previousHash}`, plan.previousReadAt ? [' (last read ', timeOf(plan.previousReadAt), ')'] : '',
          ` became ${plan.hash}.`) : null,
      el('p', {class: 'plan-read'}, 'Read ', timeOf(plan.readAt), ', shape ', el('code', {}, plan.hash),
          plan.changedAt ? '' : ' (no other shape seen in the window)'),
      plan.plan ? el('pre', {class: 'sql plan-text'}, planText(plan.plan))
        : el('p', {class: 'empty'}, `The window did not keep this plan's JSON: ${plan.omitted}. The sinks have it.`));
}

function timeOf(instant) {
  return el('time', {datetime: instant, title: instant}, new Date(instant).toLocaleString());
}

/** EXPLAIN (FORMAT JSON)'s output as lines: one per node, children indented under "-> ", conditions beneath. */
export function planText(explained) {
  const lines = [];
  const roots = Array.isArray(explained) ? explained : [explained];
  roots.forEach(root => node(root?.Plan ?? root, 0, lines));
  return lines.join('\n');
}

function node(plan, depth, lines) {
  if (!plan || typeof plan !== 'object') return;
  const pad = depth === 0 ? '' : `${'      '.repeat(depth - 1)}  -> `;
  const inner = ' '.repeat(pad.length + 2);
  lines.push(pad + label(plan) + estimates(plan));
  for (const field of DETAILS) {
    const value = plan[field];
    if (value !== undefined && value !== null) {
      lines.push(`${inner}${field}: ${Array.isArray(value) ? value.join(', ') : value}`);
    }
  }
  (Array.isArray(plan.Plans) ? plan.Plans : []).forEach(child => node(child, depth + 1, lines));
}

function label(plan) {
  let text = String(plan['Node Type'] ?? '?');
  if (plan.Strategy && plan['Node Type'] === 'Aggregate') text = `${plan.Strategy} ${text}`;
  if (plan['Join Type'] && plan['Join Type'] !== 'Inner') text += ` (${plan['Join Type']})`;
  if (plan['Parent Relationship'] === 'SubPlan' || plan['Subplan Name']) text += ` [${plan['Subplan Name'] ?? 'SubPlan'}]`;
  if (plan['Index Name']) text += ` using ${plan['Index Name']}`;
  if (plan['Relation Name']) {
    text += ` on ${plan.Schema ? `${plan.Schema}.` : ''}${plan['Relation Name']}`;
    if (plan.Alias && plan.Alias !== plan['Relation Name']) text += ` ${plan.Alias}`;
  } else if (plan['CTE Name']) {
    text += ` on ${plan['CTE Name']}`;
  } else if (plan['Function Name']) {
    text += ` on ${plan['Function Name']}`;
  }
  return text;
}

function estimates(plan) {
  const cost = plan['Total Cost'];
  if (cost === undefined) return '';
  const actual = plan['Actual Rows'] === undefined ? ''
    : `  (actual rows ${plan['Actual Rows']}, ${plan['Actual Total Time']} ms, loops ${plan['Actual Loops']})`;
  return `  (cost ${plan['Startup Cost']}..${cost}, rows ${plan['Plan Rows']}, width ${plan['Plan Width']})${actual}`;
}

const NO_ACTUAL_PLAN = 'No actual plan: auto_explain logs a plan of a run slower than auto_explain.log_min_duration,'
  + ' and log_plans reads it from the server log (docs/log-insights.md).';

/**
 * The Actual plans section: auto_explain's plans of this statement that log_plans read from the server
 * log (GET /api/v1/sources/{name}/log-events?category=plans&queryid=...), the latest run of each shape,
 * with estimated against actual rows of the root. {section, stop}; read again every 30 s.
 */
export function actualPlanSection(name, queryid) {
  const list = el('div', {id: 'statement-actual-plans'});
  const empty = el('p', {class: 'empty'}, NO_ACTUAL_PLAN);
  let timer = null;
  const read = () => get(`/api/v1/sources/${enc(name)}/log-events?category=plans&queryid=${enc(queryid)}`)
    .then(({body}) => {
      const byShape = new Map();
      body.events.forEach(event => { if (!byShape.has(event.values.plan_hash)) byShape.set(event.values.plan_hash, event); });
      fill(list, [...byShape.values()].map(actualPlanArticle));
      empty.hidden = byShape.size > 0;
    }).catch(() => {}).finally(() => { timer = setTimeout(read, 30000); });
  if (/^-?\d+$/.test(queryid)) read();
  return {section: el('section', {}, el('h2', {}, 'Actual plans'), empty, list), stop: () => clearTimeout(timer)};
}

function actualPlanArticle(event) {
  const v = event.values;
  let body = v.plan;
  if (v.format === 'json') {
    try { body = planText(JSON.parse(v.plan)); } catch { body = String(v.plan); }
  }
  return el('article', {class: 'plan actual-plan', 'data-hash': v.plan_hash},
      el('p', {class: 'plan-read'}, 'Ran ', timeOf(v.log_time ?? event.collectedAt), ` for ${v.duration_ms} ms, shape `,
          el('code', {}, String(v.plan_hash)), `: estimated ${v.estimated_rows ?? '?'} rows, actual ${v.actual_rows ?? '?'}`),
      el('pre', {class: 'sql plan-text'}, String(body ?? '')));
}
