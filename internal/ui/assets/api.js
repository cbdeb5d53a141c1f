// The API client of the dashboard: every call carries the logged-in token.
export function token() { return sessionStorage.getItem('taskgov-token') || ''; }
export function setToken(t) { if (t) sessionStorage.setItem('taskgov-token', t); else sessionStorage.removeItem('taskgov-token'); }

export async function api(path, opts = {}) {
  const res = await fetch(path, { ...opts, headers: { 'Authorization': 'Bearer ' + token(), 'Content-Type': 'application/json' } });
  const text = await res.text();
  if (!res.ok) {
    let msg = text;
    try { const e = JSON.parse(text).error; msg = e.message + (e.fix ? ' — ' + e.fix : ''); } catch (_) {}
    throw new Error(msg);
  }
  const type = res.headers.get('Content-Type') || '';
  return type.includes('json') ? JSON.parse(text) : text;
}
