// The collector's own words, explained where they appear (titles) and in one list per page.
import {el} from './dom.js';

export const WORDS = {
  tick: ['Tick', 'One round of collection for a source: every metric due at that moment is sent to the server'
    + ' together, in one round trip. "Tick" on the overview is how long the last round took.'],
  pipeline: ['Pipeline', 'The lane of healthy metrics: all metrics due on a tick go to the server in one round trip,'
    + ' one statement after the other.'],
  solo: ['Solo lane', 'Where a metric that failed or timed out in the pipeline runs on its own, with back-off, so that'
    + ' one bad metric cannot fail the others; it returns to the pipeline after succeeding again.'],
  native: ['Native', 'A metric collected by pgharvest\'s own code (CPU, memory, disks, the server log), not by SQL.'],
};

/** The explanation of a lane word as the status API writes it (pipeline, solo, native, ...), or undefined. */
export const laneHint = lane => WORDS[lane]?.[1];

/** "What the words mean": a closed disclosure listing every word. */
export function glossary() {
  return el('details', {id: 'glossary', class: 'glossary'}, el('summary', {}, 'What the words mean'),
      el('dl', {class: 'details'}, Object.values(WORDS).map(([word, text]) => [el('dt', {}, word), el('dd', {}, text)])));
}
