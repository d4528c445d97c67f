// A source's Tables tab (size, dead tuples and their share, last vacuum and analyze, freeze age
// against its limit, whether vacuum is due and why; GET .../tables) and Indexes tab (unused with the
// statistics' age, invalid, duplicate, size, scans; GET .../indexes), both sortable.
import {el, fill} from './dom.js';
import {viewPage, formatAge, sortableTable, emptyText} from './views.js';
import {formatBytes, formatCount} from './charts.js';

const TABLE_WORDS = {
  table_stats: ['Table sizes and tuples', 'the database has no user table'],
  table_maintenance: ['Autovacuum thresholds', 'the database has no user table'],
};
const INDEX_WORDS = {
  index_stats: ['Index sizes and scans', 'the database has no user index'],
  unused_indexes: ['Unused indexes', 'no index is unused'],
  invalid_indexes: ['Invalid indexes', 'no index is invalid'],
  duplicate_indexes: ['Duplicate indexes', 'no index duplicates another'],
};

const due = flag => flag == null || flag == undefined ? '' : flag ? 'due' : 'no';

export function renderTables(view, name) {
  return viewPage(view, name, 'tables', 'Tables', ({content}) => {
    const table = sortableTable('tables', [
      ['name', 'Table', t => `${t.schema}.${t.name}`, t => `${t.schema}.${t.name}`],
      ['sizeBytes', 'Size', t => formatBytes(t.totalSizeBytes ?? t.sizeBytes), t => t.totalSizeBytes ?? t.sizeBytes, true],
      ['liveTuples', 'Live tuples', t => formatCount(t.liveTuples), t => t.liveTuples, true],
      ['deadTuples', 'Dead tuples', t => formatCount(t.deadTuples), t => t.deadTuples, true],
      ['deadPercent', 'Dead %', t => t.deadPercent == null ? '' : `${t.deadPercent.toFixed(1)} %`, t => t.deadPercent, true],
      ['lastVacuumSeconds', 'Last vacuum', t => ago(t.lastVacuumSeconds, t.vacuumCount, t.autovacuumCount),
        t => t.lastVacuumSeconds ?? Infinity, true],
      ['lastAnalyzeSeconds', 'Last analyze', t => ago(t.lastAnalyzeSeconds, t.analyzeCount, t.autoanalyzeCount),
        t => t.lastAnalyzeSeconds ?? Infinity, true],
      ['freezeAge', 'Freeze age', t => freeze(t), t => t.freezeMaxAge ? t.freezeAge / t.freezeMaxAge : t.freezeAge, true],
      ['vacuumDue', 'Vacuum', t => el('span', {class: t.vacuumDue ? 'badge due' : undefined}, due(t.vacuumDue)),
        t => (t.vacuumDue ? 2 : 0) + (t.analyzeDue ? 1 : 0)],
      ['reasons', 'Why', t => t.reasons.join('; '), t => t.reasons.length],
    ], {sort: 'deadTuples', rowKey: t => `${t.schema}.${t.name}`});
    const empty = el('p', {class: 'empty', id: 'no-tables', hidden: true}, 'No table in the latest reads.');
    fill(content, table.element, empty);
    return {path: 'tables', words: TABLE_WORDS, render(answer) {
      table.show(answer.tables);
      empty.hidden = answer.tables.length > 0;
      fill(empty, emptyText(answer, 'No table in the latest reads.'));
    }};
  });
}

function ago(seconds, manual, auto) {
  const counts = manual !== null && manual !== undefined ? ` (${formatCount(manual)} manual, ${formatCount(auto)} auto)` : '';
  return seconds == null || seconds == undefined ? `never${counts}` : `${formatAge(seconds)} ago${counts}`;
}

function freeze(t) {
  if (t.freezeAge == null || t.freezeAge == undefined) return '';
  return t.freezeMaxAge ? `${formatCount(t.freezeAge)} of ${formatCount(t.freezeMaxAge)} (${(100 * t.freezeAge / t.freezeMaxAge).toFixed(1)} %)`
    : formatCount(t.freezeAge);
}

export function renderIndexes(view, name) {
  return viewPage(view, name, 'indexes', 'Indexes', ({content}) => {
    let onlyFindings = false;
    let last = null;
    const toggle = el('input', {type: 'checkbox', id: 'indexes-findings', onchange: () => {
      onlyFindings = toggle.checked;
      if (last) show(last);
    }});
    const table = sortableTable('indexes', [
      ['name', 'Index', i => `${i.schema}.${i.name}`, i => `${i.schema}.${i.name}`],
      ['table', 'Table', i => i.table, i => i.table],
      ['sizeBytes', 'Size', i => formatBytes(i.sizeBytes), i => i.sizeBytes, true],
      ['scans', 'Scans', i => formatCount(i.scans), i => i.scans, true],
      ['lastScanSeconds', 'Last scan', i => i.lastScanSeconds == null ? '' : `${formatAge(i.lastScanSeconds)} ago`,
        i => i.lastScanSeconds, true],
      ['unused', 'Unused', i => i.unused ? el('span', {class: 'badge due'}, 'unused') : '', i => i.unused ? 1 : 0],
      ['statisticsAgeSeconds', 'Statistics since', i => i.statisticsAgeSeconds == null ? 'never reset'
        : `reset ${formatAge(i.statisticsAgeSeconds)} ago`, i => i.statisticsAgeSeconds ?? Infinity, true],
      ['findings', 'Findings', i => i.findings.join('; '), i => i.findings.length],
    ], {sort: 'sizeBytes', rowKey: i => `${i.schema}.${i.table}.${i.name}`});
    const empty = el('p', {class: 'empty', id: 'no-indexes', hidden: true});
    fill(content, el('div', {class: 'toolbar'}, el('label', {class: 'inline'}, toggle, 'only unused, invalid or duplicate')),
        table.element, empty);
    function show(answer) {
      const shown = answer.indexes.filter(i => !onlyFindings || i.findings.length > 0);
      table.show(shown);
      empty.hidden = shown.length > 0;
      fill(empty, answer.indexes.length ? 'No index has a finding.' : emptyText(answer, 'No index in the latest reads.'));
    }
    return {path: 'indexes', words: INDEX_WORDS, render(answer) { last = answer; show(answer); }};
  });
}
