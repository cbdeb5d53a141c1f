// Small helpers shared by the pages: escaping, formatting, state badges,
// per-tab saved view state.
export const esc = s => String(s ?? '').replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
export const ns = team => 'hyperpod-ns-' + team;

// when shows a time with its date, in the browser's zone.
export function when(t) {
  if (!t) return '-';
  const d = new Date(t);
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

// dur shows seconds as 45 s, 12 min, 3.5 h or 2.1 d.
export function dur(s) {
  if (!isFinite(s)) return '-';
  if (s < 90) return Math.round(s) + ' s';
  if (s < 5400) return Math.round(s / 60) + ' min';
  if (s < 172800) return (s / 3600).toFixed(1) + ' h';
  return (s / 86400).toFixed(1) + ' d';
}

export const num = (v, digits = 0) => v < 0 ? 'unlimited' : Number(v).toLocaleString(undefined, { maximumFractionDigits: digits });

// A state badge carries an icon and the word, not only a colour.
const icons = { Pending: '◷', Running: '▶', Suspended: '❚❚', Succeeded: '✓', Failed: '✕', Cancelled: '⊘', Interrupted: '↻' };
export const badge = st => `<span class="badge st-${esc(st)}"><span aria-hidden="true">${icons[st] || '•'}</span> ${esc(st)}</span>`;
export const states = ['Pending', 'Running', 'Suspended', 'Succeeded', 'Failed', 'Cancelled'];

// saved reads and writes a page's view state (filters, sort, window) for
// this browser tab, so it survives refreshes and reloads.
export function saved(key, fallback = {}) {
  try { return { ...fallback, ...JSON.parse(sessionStorage.getItem('taskgov-' + key) || '{}') }; } catch (_) { return { ...fallback }; }
}
export const save = (key, v) => sessionStorage.setItem('taskgov-' + key, JSON.stringify(v));

// who renders a token named in a message ("suspended by tok-…") as its
// name, role and team, from the actors map the API sends with messages.
export function withActors(text, actors) {
  return esc(text).replace(/\btok-[0-9a-f]{12}\b/g, id => {
    const a = actors?.[id];
    return a ? `<span class="actor" title="${esc(id)}">${esc(a.name)} (${esc(a.role)}${a.team ? ', ' + esc(a.team) : ''})</span>` : id;
  });
}

// options renders <option>s with one selected.
export const options = (values, sel, all = null) =>
  (all !== null ? `<option value="">${esc(all)}</option>` : '') +
  values.map(v => { const [val, label] = Array.isArray(v) ? v : [v, v]; return `<option value="${esc(val)}"${val === sel ? ' selected' : ''}>${esc(label)}</option>`; }).join('');

// request describes a task's per-pod request.
export function request(spec) {
  const p = spec.perNode || {};
  const n = spec.nodes || 1;
  if (!p.gpus && !p.vcpu && !p.memoryGiB) return `${n} whole ${esc(spec.instanceType)} node${n > 1 ? 's' : ''}`;
  const parts = [];
  if (p.gpus) parts.push(`${p.gpus} GPU${p.gpus > 1 ? 's' : ''}`);
  if (p.vcpu) parts.push(`${p.vcpu} vCPU`);
  if (p.memoryGiB) parts.push(`${p.memoryGiB} GiB`);
  return `${n} pod${n > 1 ? 's' : ''} × (${parts.join(', ')}) on ${esc(spec.instanceType)}`;
}

// whenShort is a compact date and time for table cells; the full one is
// its title.
// startText says when a waiting task can start (the API's start: an
// earliest time only where its wait reason names one) and on what basis.
export function startText(s) {
  if (!s) return '';
  const head = s.notBefore ? `Not before ${when(s.notBefore)}` : 'No estimate';
  return `<span class="start" data-not-before="${esc(s.notBefore || '')}">${esc(head)}</span> <span class="muted small">Basis: ${esc(s.basis.replace(/^no estimate: /, ''))}.</span>`;
}

export function whenShort(t) {
  if (!t) return '-';
  const d = new Date(t);
  return `<time datetime="${esc(t)}" title="${esc(when(t))}">${esc(d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }))}</time>`;
}
