// The only place that talks to the REST API. The token lives in this module's memory: never in a
// URL, a cookie or localStorage, so it dies with the tab (a reload asks for it again).

let token = null;
let accepted = false;
const listeners = new Set();

/** A token to try; loggedIn() once the API has accepted it (acceptToken). */
export function setToken(value) { token = value; accepted = false; }
export function acceptToken() { accepted = true; }
export function loggedIn() { return token !== null && accepted; }
export function logOut() {
  const wasIn = accepted;
  token = null;
  accepted = false;
  if (wasIn) listeners.forEach(listener => listener());
}
/** Called when the API answers 401: the token is wrong or changed. */
export function onLoggedOut(listener) { listeners.add(listener); }

// Whether the collector answers at all: null while it does, else when it stopped (the first
// failure of a request since the last answer). Pages keep their last picture; app.js marks it stale.
let unansweredSince = null;
const reachability = new Set();
/** Calls `listener(since)` when the collector stops answering (since: a Date) and `listener(null)` when it is back. */
export function onReachability(listener) { reachability.add(listener); }
function reached(answered) {
  if (answered === (unansweredSince === null)) return;
  unansweredSince = answered ? null : new Date();
  reachability.forEach(listener => listener(unansweredSince));
}

/** An answer that is not 2xx: the problem details (RFC 9457) with their per-field errors. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.errors = Array.isArray(this.problem.errors) ? this.problem.errors : [];
  }
}

/**
 * fetch with the bearer token; JSON in and out. Returns {body, index, etag} where index is the
 * X-Pgharvest-Index header of a blocking query. With `etag` (the etag of an earlier answer) the
 * server answers 304 without a body when nothing changed: then `unchanged` is true and body null.
 */
export async function call(method, path, body, {signal, raw, etag} = {}) {
  const headers = {Authorization: `Bearer ${token}`, Accept: 'application/json, application/problem+json'};
  if (etag) headers['If-None-Match'] = etag;
  let payload;
  if (raw !== undefined) {
    payload = raw;
    headers['Content-Type'] = 'application/yaml';
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['Content-Type'] = 'application/json';
  }
  let response;
  try {
    response = await fetch(path, {method, headers, body: payload, signal, cache: 'no-store'});
  } catch (failure) {
    if (!signal?.aborted) reached(false);
    throw failure;
  }
  // A collector shutting down or behind a proxy that lost it answers 502-504: not answering either.
  reached(![502, 503, 504].includes(response.status));
  const index = response.headers.get('X-Pgharvest-Index');
  if (response.status === 304) return {body: null, index, etag, unchanged: true};
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : null;
  if (response.status === 401 && accepted) logOut();
  if (!response.ok) throw new ApiError(response.status, parsed);
  return {body: parsed, index, etag: response.headers.get('ETag')};
}

export const get = (path, options) => call('GET', path, undefined, options);
export const post = (path, body, options) => call('POST', path, body, options);
export const put = (path, body, modifyIndex) => call('PUT', withCas(path, modifyIndex), body);
export const del = (path, modifyIndex) => call('DELETE', withCas(path, modifyIndex));

export const enc = encodeURIComponent;

/**
 * `path` with Consul's check-and-set: the write is refused (409 stale-index) when the item changed
 * since it was read at `modifyIndex`, so a toggle or an edit never overwrites a change it has not seen.
 */
export function withCas(path, modifyIndex) {
  if (modifyIndex === undefined || modifyIndex === null) return path;
  return `${path}${path.includes('?') ? '&' : '?'}cas=${enc(modifyIndex)}`;
}

/** Whether `error` is a conditional write refused because someone else changed the item first. */
export function isStale(error) {
  return error instanceof ApiError && error.status === 409 && /\/stale-index$/.test(String(error.problem.type || ''));
}

/**
 * Keeps one blocking query open on `path` and calls `render(body)` with each answer: one
 * long-poll per page, never a polling storm. A change answers at once; without one the query comes
 * back after 10 s with fresh figures that do not wake it (last tick times), and a server shutting
 * down gracefully waits at most that long for the page's open request. Returns a stop function
 * (called when the page is left). `pause` (ms) spaces the queries of data that changes all the time.
 */
export function live(path, render, {wait = '10s', onError, pause = 0} = {}) {
  const controller = new AbortController();
  let index = null;
  let etag = null;
  (async () => {
    let failures = 0;
    while (!controller.signal.aborted) {
      const separator = path.includes('?') ? '&' : '?';
      const url = index === null ? path : `${path}${separator}index=${index}&wait=${wait}`;
      try {
        // The etag of the last answer: a wait that expires on unchanged data answers 304 with no
        // body (the fleet status of 1,000 sources is ~500 KB), and the page keeps what it shows.
        const answer = await get(url, {signal: controller.signal, etag});
        failures = 0;
        index = answer.index;
        etag = answer.etag;
        if (!answer.unchanged) render(answer.body);
        // A query whose data changes all the time (the fleet's key numbers) is re-asked at most
        // once per pause, not once per change.
        if (pause) await new Promise(resolve => setTimeout(resolve, pause));
      } catch (error) {
        if (controller.signal.aborted || error.status === 401) return;
        onError?.(error);
        failures++;
        index = null;
        etag = null;
        await new Promise(resolve => setTimeout(resolve, Math.min(10000, 500 * 2 ** failures)));
      }
    }
  })();
  return () => controller.abort();
}
