// The API client of the dashboard: every call carries the logged-in token.
// A call that cannot reach the server (network error, 502, 503, 504) marks
// the server unreachable until the next call that gets through; pages keep
// their last figures meanwhile, and app.js shows a banner.
export function token() { return sessionStorage.getItem('taskgov-token') || ''; }
export function setToken(t) { if (t) sessionStorage.setItem('taskgov-token', t); else sessionStorage.removeItem('taskgov-token'); }

// ApiError is a refusal by the server: status, code, field, and one message
// that names the fix once.
export class ApiError extends Error {
  constructor(status, body) {
    const e = body?.error || {};
    let msg = e.message || `HTTP ${status}`;
    if (e.fix && !msg.includes(e.fix)) msg += ' — ' + e.fix;
    super(msg);
    Object.assign(this, { status, code: e.code, field: e.field });
  }
}

// OutageError is a server that could not be reached.
export class OutageError extends Error {}

export const health = { down: null, listeners: new Set() }; // down: Date of the first failure, or null
function setDown(d) {
  if ((d === null) === (health.down === null)) return;
  health.down = d;
  for (const f of health.listeners) f(d);
}

export async function api(path, opts = {}) {
  let res;
  try {
    res = await fetch(path, { ...opts, headers: { 'Authorization': 'Bearer ' + token(), 'Content-Type': 'application/json' } });
  } catch (e) {
    setDown(health.down || new Date());
    throw new OutageError('cannot reach the server: ' + e.message);
  }
  if ([502, 503, 504].includes(res.status)) {
    setDown(health.down || new Date());
    throw new OutageError(`the server answered ${res.status}`);
  }
  setDown(null);
  const text = await res.text();
  if (!res.ok) {
    let body = null;
    try { body = JSON.parse(text); } catch (_) { body = { error: { message: text } }; }
    throw new ApiError(res.status, body);
  }
  const type = res.headers.get('Content-Type') || '';
  return type.includes('json') ? JSON.parse(text) : text;
}
