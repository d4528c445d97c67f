// A source's "Wraparound and replication" tab: transaction ID and multixact ages per database against
// their limits (GET .../wraparound), standbys with their lag and slots with the WAL they retain
// (GET .../replication). An empty list says whether the metric was read and found nothing.
import {el, fill, morph} from './dom.js';
import {enc, live} from './api.js';
import {viewPage, formatAge, sortableTable, readLines} from './views.js';
import {formatBytes, formatCount} from './charts.js';

const WORDS = {
  xid_wraparound: ['Wraparound', 'no database'],
  replication: ['Standbys', 'no standby is connected'],
  replication_slots: ['Replication slots', 'the server has no replication slot'],
};

const percent = value => value == null || value == undefined ? '' : `${value.toFixed(value >= 10 ? 1 : 2)} %`;

export function renderServer(view, name) {
  return viewPage(view, name, 'server', 'Wraparound and replication', ({content}) => {
    const ages = sortableTable('wraparound', [
      ['database', 'Database', d => d.database, d => d.database],
      ['xidAge', 'Transaction ID age', d => formatCount(d.xidAge), d => d.xidAge, true],
      ['xidPercentOfFreezeMaxAge', 'of autovacuum_freeze_max_age', d => percent(d.xidPercentOfFreezeMaxAge),
        d => d.xidPercentOfFreezeMaxAge, true],
      ['xidPercentOfWraparound', 'of the wraparound limit (2^31)', d => percent(d.xidPercentOfWraparound),
        d => d.xidPercentOfWraparound, true],
      ['mxidAge', 'Multixact ID age', d => formatCount(d.mxidAge), d => d.mxidAge, true],
      ['mxidPercentOfFreezeMaxAge', 'of autovacuum_multixact_freeze_max_age', d => percent(d.mxidPercentOfFreezeMaxAge),
        d => d.mxidPercentOfFreezeMaxAge, true],
    ], {sort: 'xidAge', rowKey: d => d.database});
    const lag = value => el('a', {href: `#/sources/${enc(name)}`, title: 'The replication lag chart'}, value);
    const standbys = sortableTable('standbys', [
      ['application', 'Standby', s => s.application || s.client, s => s.application],
      ['client', 'Client', s => s.client, s => s.client],
      ['state', 'State', s => `${s.state} (${s.syncState})`, s => s.state],
      ['replayLagBytes', 'Replay lag', s => lag(formatBytes(s.replayLagBytes)), s => s.replayLagBytes, true],
      ['replayLagSeconds', 'Replay lag time', s => formatAge(s.replayLagSeconds), s => s.replayLagSeconds, true],
      ['sentLagBytes', 'Not yet sent', s => formatBytes(s.sentLagBytes), s => s.sentLagBytes, true],
      ['lastReplySeconds', 'Last reply', s => s.lastReplySeconds == null ? '' : `${formatAge(s.lastReplySeconds)} ago`,
        s => s.lastReplySeconds, true],
    ], {sort: 'replayLagBytes', rowKey: s => `${s.application}/${s.client}`});
    const slots = sortableTable('slots', [
      ['name', 'Slot', s => s.name, s => s.name],
      ['type', 'Type', s => s.database ? `${s.type} (${s.database})` : s.type, s => s.type],
      ['active', 'Active', s => s.active ? 'yes' : el('span', {class: 'badge due'}, 'inactive'), s => s.active ? 1 : 0],
      ['retainedWalBytes', 'Retained WAL', s => formatBytes(s.retainedWalBytes), s => s.retainedWalBytes, true],
      ['walStatus', 'WAL status', s => [s.walStatus, s.invalidationReason].filter(Boolean).join(': '), s => s.walStatus],
      ['xminAge', 'xmin age', s => formatCount(s.xminAge), s => s.xminAge, true],
      ['inactiveSeconds', 'Inactive for', s => formatAge(s.inactiveSeconds), s => s.inactiveSeconds, true],
    ], {sort: 'retainedWalBytes', rowKey: s => s.name});
    const replicationReads = el('ul', {class: 'reads', id: 'replication-reads'});
    fill(content, el('section', {id: 'wraparound'}, el('h2', {}, 'Transaction ID wraparound'), ages.element),
        el('section', {id: 'replication'}, el('h2', {}, 'Replication'), replicationReads,
            el('h3', {}, 'Standbys'), standbys.element, el('h3', {}, 'Slots'), slots.element));
    // The page's frame follows the wraparound read; the replication reads have their own line and query.
    const stop = followReplication(name, answer => {
      morph(replicationReads, el('ul', {class: 'reads', id: 'replication-reads'}, readLines(answer.reads, WORDS)));
      standbys.show(answer.standbys);
      slots.show(answer.slots);
    });
    return {path: 'wraparound', words: WORDS, stop, render(answer) { ages.show(answer.databases); }};
  });
}

function followReplication(name, render) {
  return live(`/api/v1/sources/${enc(name)}/replication`, render, {wait: '30s', onError: () => {}});
}
