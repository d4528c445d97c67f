// The fleet status as changes: the whole fleet once, a page at a time, then only what changed after
// the change index the page holds (GET /api/v1/status?since=N), each a blocking query. A busy fleet
// (every source ticking, or failing and retrying) then sends its ticks, about 150 bytes a source, not
// every entry again.
import {get} from './api.js';

/** The most sources an answer may hold (the API's maximum page). */
const PAGE = 1000;

/**
 * Keeps one blocking query open on the fleet status and calls `render({counts, total, sources})`
 * with every source (in no particular order) after each answer that changed something, and after
 * the first answer that follows a failure. Returns a stop function (called when the page is left).
 */
export function followFleet(render, {wait = '10s', onError} = {}) {
  const controller = new AbortController();
  const signal = controller.signal;
  const entries = new Map();
  let since = null;
  let index = null;
  (async () => {
    let failures = 0;
    while (!signal.aborted) {
      try {
        const path = since === null ? `/api/v1/status?limit=${PAGE}`
          : `/api/v1/status?limit=${PAGE}&since=${since}${index === null ? '' : `&index=${index}&wait=${wait}`}`;
        const first = await get(path, {signal});
        const pages = [first.body];
        for (let next = first.body.next; next;) {
          const page = (await get(next, {signal})).body;
          pages.push(page);
          next = page.next;
        }
        if (pages.some(page => page.whole !== first.body.whole)) {
          // The server forgot `since` between two pages of one answer: walk the whole fleet afresh.
          since = null;
          continue;
        }
        const changed = apply(entries, pages);
        index = first.index;
        since = first.body.changeIndex;
        if (changed || failures > 0) {
          const last = pages[pages.length - 1];
          render({counts: last.counts, total: last.total, sources: [...entries.values()]});
        }
        failures = 0;
      } catch (error) {
        if (signal.aborted || error.status === 401) return;
        onError?.(error);
        failures++;
        index = null;
        await new Promise(resolve => setTimeout(resolve, Math.min(10000, 500 * 2 ** failures)));
      }
    }
  })();
  return () => controller.abort();
}

/** Applies one answer's pages to `entries` (name -> entry); whether anything changed. */
function apply(entries, pages) {
  const whole = pages[0].whole;
  if (whole) entries.clear();
  let changed = whole;
  for (const page of pages) {
    // Removed names go first: a name may have been removed and added again.
    for (const name of page.removed) changed = entries.delete(name) || changed;
    for (const entry of page.sources) {
      entries.set(entry.name, entry);
      changed = true;
    }
    for (const tick of page.ticks) {
      const entry = entries.get(tick.name);
      if (!entry) continue;
      entries.set(tick.name, {...entry, lastTickStart: tick.lastTickStart, lastTickDuration: tick.lastTickDuration,
        lastErrorAt: tick.lastErrorAt});
      changed = true;
    }
  }
  return changed;
}
