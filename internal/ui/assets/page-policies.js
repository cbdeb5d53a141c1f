// Policies: the cluster policy as a form (prioritisation, idle compute,
// borrowing, fair-share, starvation, restart cost, preemption delay, victim
// order, preemption timing, priority classes). Admins preview a change on a copy of the
// scheduler before saving it; Save stays disabled until Preview has run on
// exactly what would be saved. Others see the policy read-only.
import { api } from './api.js';
import { esc, options } from './util.js';
import { previewHTML } from './preview.js';

let previewed = null;

const fields = [ // [key, label, help, kind]
  ['taskPrioritization', 'Task prioritisation', 'How a team orders its own pending tasks.', [['FirstComeFirstServe', 'first come, first served'], ['TaskRanking', 'by priority class, then arrival']]],
  ['idleComputeAllocation', 'Idle compute allocation', 'Which team borrows idle compute first.', [['FairShare', 'fair share (by weight)'], ['FirstComeFirstServe', 'first come, first served']]],
  ['borrowUnallocated', 'Borrow unallocated capacity', 'Teams may borrow capacity beyond the sum of all quotas.', 'bool'],
  ['fairShareRebalance', 'Fair-share rebalance', 'A team below its fair share may preempt borrowed tasks of a team above it.', 'bool'],
  ['fairShareMinRuntimeSeconds', 'Fair-share minimum runtime (s)', 'How long a borrowed task runs before a rebalance may preempt it.', 'int'],
  ['starvationBoundSeconds', 'Starvation bound (s)', 'How long a task that fits its quota waits for room before nodes are held for it.', 'int'],
  ['restartCostSeconds', 'Restart cost (s)', 'Wall time a preempted task loses restarting, counted when choosing victims.', 'int'],
  ['preemptionDelaySeconds', 'Preemption delay (s)', 'How long a task waits for room to free up before it may preempt.', 'float'],
  ['victimOrder', 'Victim order', 'Among equal priorities, which running task is preempted first.', [['LeastLostWork', 'least work lost since its checkpoint'], ['MostRecentlyStarted', 'most recently started']]],
  ['preemption', 'Preemption timing', 'Payback: a task preempts once the GPU time it has waited covers the work its victims would lose. Immediate: as soon as the rules allow.', [['Payback', 'once it pays for itself'], ['Immediate', 'at once']]],
];

async function render(ctx) {
  const p = await api('/api/v1/policy');
  if (!ctx.admin()) return readOnly(p);
  return `<h1>Policies</h1>
  <form id="policy-form" class="card editor" data-submit="noop" aria-labelledby="policy-title"><h2 id="policy-title">Cluster policy</h2>
  <p class="muted">A change applies live once saved. Preview first: it runs the edited policy on a copy of the scheduler and lists what would be admitted or preempted now.</p>
  <div class="grid">${fields.map(([k, label, help, kind]) => {
    const id = 'p-' + k, v = p[k];
    const input = Array.isArray(kind) ? `<select id="${id}" data-change="dirty" aria-describedby="${id}-help">${options(kind, v)}</select>`
      : kind === 'bool' ? `<input id="${id}" type="checkbox" ${v ? 'checked' : ''} data-change="dirty" aria-describedby="${id}-help">`
      : `<input id="${id}" type="number" min="0" step="${kind === 'float' ? 'any' : '1'}" value="${v ?? 0}" data-input="dirty" aria-describedby="${id}-help">`;
    return `<label for="${id}">${label}</label><div>${input}<p class="help" id="${id}-help">${help}</p></div>`;
  }).join('')}</div>
  <h3>Priority classes</h3><p class="muted small">A higher weight ranks first and may preempt lower ones. The grace period (s) applies to tasks of the class that set none.</p>
  <table id="classes-table"><thead><tr><th scope="col">Name</th><th scope="col">Weight</th><th scope="col">Grace period (s)</th><th scope="col"><span class="sr-only">Remove</span></th></tr></thead>
  <tbody>${(p.priorityClasses || []).map(classRow).join('')}</tbody></table>
  <p><button type="button" class="ghost" data-action="addClass" id="class-add">Add a priority class</button></p>
  <div class="row"><button type="button" data-action="preview" id="policy-preview">Preview</button> <button type="button" data-action="savePolicy" id="policy-save" disabled>Save</button>
    <button type="button" class="ghost" data-action="reset">Discard changes</button></div>
  <div id="policy-result" role="status"></div></form>`;
}

let rowSeq = 0;
function classRow(c) {
  const i = rowSeq++;
  return `<tr><td><label class="sr-only" for="c${i}-name">Class name</label><input id="c${i}-name" data-c="name" value="${esc(c.name || '')}" required data-input="dirty"></td>
    <td><label class="sr-only" for="c${i}-weight">Weight</label><input id="c${i}-weight" data-c="weight" type="number" value="${c.weight ?? 0}" data-input="dirty"></td>
    <td><label class="sr-only" for="c${i}-grace">Grace period</label><input id="c${i}-grace" data-c="gracePeriodSeconds" type="number" min="0" value="${c.gracePeriodSeconds || ''}" data-input="dirty"></td>
    <td><button type="button" class="ghost" data-action="removeClass">Remove</button></td></tr>`;
}

function readOnly(p) {
  return `<h1>Policies</h1><div class="card"><h2>Cluster policy</h2><p class="muted" id="policy-readonly">Only admins change the policy; this is what is in force.</p>
  <dl class="facts" id="policy-facts">${fields.map(([k, label, , kind]) => {
    const v = p[k];
    const shown = Array.isArray(kind) ? (kind.find(o => o[0] === v) || [v, v])[1] : kind === 'bool' ? (v ? 'yes' : 'no') : v ?? '-';
    return `<dt>${label}</dt><dd>${esc(shown)}</dd>`;
  }).join('')}</dl>
  <h3>Priority classes</h3><table id="classes-table"><thead><tr><th scope="col">Name</th><th scope="col" class="num">Weight</th><th scope="col" class="num">Grace period (s)</th></tr></thead><tbody>
  ${(p.priorityClasses || []).map(c => `<tr><td>${esc(c.name)}</td><td class="num">${c.weight}</td><td class="num">${c.gracePeriodSeconds || '-'}</td></tr>`).join('')}</tbody></table></div>`;
}

// read turns the form into a policy as the API takes it.
function read() {
  const p = {};
  for (const [k, , , kind] of fields) {
    const el = document.getElementById('p-' + k);
    p[k] = kind === 'bool' ? el.checked : kind === 'int' ? parseInt(el.value || '0', 10) : kind === 'float' ? parseFloat(el.value || '0') : el.value;
  }
  p.priorityClasses = [...document.querySelectorAll('#classes-table tbody tr')].map(tr => {
    const g = n => tr.querySelector(`[data-c="${n}"]`).value.trim();
    const c = { name: g('name'), weight: parseInt(g('weight') || '0', 10) };
    if (g('gracePeriodSeconds')) c.gracePeriodSeconds = parseInt(g('gracePeriodSeconds'), 10);
    return c;
  });
  return p;
}

const say = html => { document.getElementById('policy-result').innerHTML = html; };

const actions = {
  noop() {},
  dirty() { previewed = null; document.getElementById('policy-save').disabled = true; },
  addClass() { document.querySelector('#classes-table tbody').insertAdjacentHTML('beforeend', classRow({})); actions.dirty(); },
  removeClass(el) { el.closest('tr').remove(); actions.dirty(); },
  reset(el, ev, ctx) { previewed = null; say(''); document.getElementById('main').dataset.page = ''; ctx.rerender(); },
  async preview() {
    const p = read();
    try {
      const r = await api('/api/v1/preview', { method: 'POST', body: JSON.stringify({ policy: p }) });
      previewed = JSON.stringify(p);
      document.getElementById('policy-save').disabled = false;
      say(previewHTML(r, 'preview-count'));
    } catch (e) { say(`<p class="error" id="policy-error">${esc(e.message)}</p>`); }
  },
  async savePolicy() {
    const p = read();
    if (JSON.stringify(p) !== previewed) { say('<p class="error">Preview the change first.</p>'); return; }
    try {
      await api('/api/v1/policy', { method: 'PUT', body: previewed });
      say('<p class="ok" id="policy-saved">Saved; the policy applies now.</p>');
      document.getElementById('policy-save').disabled = true;
    } catch (e) { say(`<p class="error" id="policy-error">${esc(e.message)}</p>`); }
  },
};

export default { title: () => 'Policies', render, actions, refresh: false };
