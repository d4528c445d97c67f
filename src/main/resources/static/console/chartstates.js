// Why a chart is empty, in honest words: its metric is not collected, is waiting for its first read,
// has been read once and a rate needs a second, or was read and had nothing (a server without
// standbys has no replication lag). From the source's reads (GET /api/v1/sources/{name}/reads).

/** The text for an empty chart of `spec` (needs: 'a or b'), given the window's series and the reads by metric. */
export function emptyText(spec, series, reads) {
  if (spec.empty) return spec.empty;
  const metrics = spec.needs.split(' or ');
  const states = metrics.map(metric => reads?.get(metric)).filter(Boolean);
  const collected = states.filter(r => r.state === 'collected');
  const once = collected.find(r => r.rows > 0 && series.some(s => s.metric === r.metric));
  if (once) {
    return `Waiting for the second read of ${once.metric}${every(once)}: a rate needs two reads.`;
  }
  const none = collected.find(r => r.rows === 0);
  if (none) {
    return `${spec.none ?? 'Collected, nothing to show'}: ${none.metric} was read at ${when(none)} and returned no row.`;
  }
  if (collected.length) {
    return `Collected (${collected.map(r => r.metric).join(', ')}), no point in this span yet.`;
  }
  const waiting = states.find(r => r.state === 'waiting');
  if (waiting) return `Waiting for the first read of ${waiting.metric}${every(waiting)}.`;
  return `Not collected: this source's metrics need ${spec.needs}.`;
}

const every = r => r.intervalSeconds ? ` (every ${r.intervalSeconds} s)` : '';
const when = r => new Date(r.readAt).toLocaleTimeString();
