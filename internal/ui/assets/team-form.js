// The team allocation editor (admins): create a team or change one
// (lending group, fair-share weight, lending, borrow limit, whether its
// higher-priority tasks preempt its own lower ones, quotas per instance
// type), delete one. Save stays disabled until Preview has run on exactly
// what would be saved; any edit disables it again.
import { api } from './api.js';
import { esc, options } from './util.js';
import { previewHTML } from './preview.js';

let teams = [], types = [], previewed = null, editing = {};
export const setTeams = t => { teams = t; };

export function quotaText(q) {
  const parts = [];
  if (q.count != null) parts.push(`${q.count} node${q.count === 1 ? '' : 's'}`);
  if (q.gpus != null) parts.push(`${q.gpus} GPUs`);
  if (q.vcpu != null) parts.push(`${q.vcpu} vCPU`);
  if (q.memoryGiB != null) parts.push(`${q.memoryGiB} GiB`);
  return `${q.instanceType}: ${parts.join(', ') || 'none'}`;
}

const numOr = (v, f = parseFloat) => v === '' ? undefined : f(v);

function quotaRow(q, i) {
  const n = (k, label, step) => `<td><label class="sr-only" for="q${i}-${k}">${label}</label><input id="q${i}-${k}" data-q="${k}" type="number" min="0" step="${step}" value="${q[k] ?? ''}" data-input="dirty" size="6"></td>`;
  return `<tr data-row="${i}"><td><label class="sr-only" for="q${i}-type">Instance type</label><input id="q${i}-type" data-q="instanceType" list="instance-types" value="${esc(q.instanceType || '')}" data-input="dirty" required></td>
    ${n('count', 'Whole nodes', 1)}${n('gpus', 'GPUs', 1)}${n('vcpu', 'vCPU', 'any')}${n('memoryGiB', 'Memory GiB', 'any')}
    <td><button type="button" class="ghost" data-action="removeQuota" aria-label="Remove this quota">Remove</button></td></tr>`;
}

function editorHTML(t, isNew) {
  return `<form id="team-form" class="editor" data-submit="noop" aria-labelledby="team-form-title">
  <h3 id="team-form-title">${isNew ? 'New team' : 'Team ' + esc(t.name)}</h3>
  <div class="grid">
    <label for="t-name">Name</label><input id="t-name" value="${esc(t.name || '')}" ${isNew ? '' : 'readonly'} required pattern="[a-z0-9]([-a-z0-9]*[a-z0-9])?" data-input="dirty">
    <label for="t-group">Lending group</label><input id="t-group" value="${esc(t.group || '')}" placeholder="default" data-input="dirty">
    <label for="t-weight">Fair-share weight</label><input id="t-weight" type="number" min="1" value="${t.fairShareWeight ?? 1}" data-input="dirty">
    <label for="t-lending">Lending</label><select id="t-lending" data-change="dirty">${options([['LendAndBorrow', 'lend and borrow'], ['Lend', 'lend only'], ['DontLend', 'neither lend nor borrow']], t.lending || 'LendAndBorrow')}</select>
    <label for="t-borrow">Borrow limit (% of quota)</label><input id="t-borrow" type="number" min="0" value="${t.borrowLimitPercent ?? 50}" data-input="dirty">
    <label for="t-preempt">Preempt own lower-priority tasks</label><select id="t-preempt" data-change="dirty">${options([['LowerPriority', 'yes'], ['LowerOrNewerEqualPriority', 'yes, and newer ones of the same class'], ['Never', 'never']], t.preemptTeamTasks || 'LowerPriority')}</select>
    <label for="t-queueing">Queue order</label><select id="t-queueing" data-change="dirty">${options([['BestEffortFIFO', 'best effort: a task that cannot start lets later ones try'], ['StrictFIFO', 'strict: no later task of its type starts before it']], t.queueingStrategy || 'BestEffortFIFO')}</select>
  </div>
  <h4>Quotas per instance type</h4><p class="muted small">Give whole nodes, or GPUs (vCPU and memory then follow the instance's ratio), or vCPU and memory for CPU-only types.</p>
  <datalist id="instance-types">${types.map(x => `<option value="${esc(x)}">`).join('')}</datalist>
  <table id="quota-table"><thead><tr><th scope="col">Instance type</th><th scope="col">Nodes</th><th scope="col">GPUs</th><th scope="col">vCPU</th><th scope="col">Memory GiB</th><th scope="col"><span class="sr-only">Remove</span></th></tr></thead>
  <tbody>${(t.quotas || []).map(quotaRow).join('')}</tbody></table>
  <p><button type="button" class="ghost" data-action="addQuota" id="quota-add">Add a quota</button></p>
  <div class="row"><button type="button" data-action="previewTeam" id="team-preview">Preview</button>
    <button type="button" data-action="saveTeam" id="team-save" disabled>Save</button>
    ${isNew ? '' : '<button type="button" class="danger" data-action="askDelete" id="team-delete">Delete team…</button>'}
    <button type="button" class="ghost" data-action="closeTeam">Close</button></div>
  <div id="team-result" role="status"></div></form>`;
}

// FORM_FIELDS are what the form shows; read keeps the team's other
// fields (reclaimWithinGroup, borrowWithinGroup, a quota's lendingLimit
// and borrowCap, ...) as they were, so saving the form loses nothing it
// does not show.
const FORM_FIELDS = ['name', 'lending', 'preemptTeamTasks', 'queueingStrategy', 'group', 'fairShareWeight', 'borrowLimitPercent', 'quotas'];
const QUOTA_FIELDS = ['instanceType', 'count', 'gpus', 'vcpu', 'memoryGiB'];
const without = (o, keys) => Object.fromEntries(Object.entries(o || {}).filter(([k]) => !keys.includes(k)));

// read turns the form into a team as the API takes it: the team being
// edited with the form's fields put in.
function read() {
  const v = id => document.getElementById(id).value.trim();
  const t = { ...without(editing, FORM_FIELDS), name: v('t-name'), lending: v('t-lending'), preemptTeamTasks: v('t-preempt'), queueingStrategy: v('t-queueing'), quotas: [] };
  if (v('t-group')) t.group = v('t-group');
  if (v('t-weight')) t.fairShareWeight = parseInt(v('t-weight'), 10);
  if (v('t-borrow')) t.borrowLimitPercent = parseInt(v('t-borrow'), 10);
  for (const tr of document.querySelectorAll('#quota-table tbody tr')) {
    const q = without(editing.quotas?.[+tr.dataset.row], QUOTA_FIELDS); // a row added in the form has none
    for (const inp of tr.querySelectorAll('[data-q]')) {
      const val = inp.value.trim();
      if (inp.dataset.q === 'instanceType') q.instanceType = val;
      else if (val !== '') q[inp.dataset.q] = numOr(val, inp.dataset.q === 'count' || inp.dataset.q === 'gpus' ? x => parseInt(x, 10) : parseFloat);
    }
    t.quotas.push(q);
  }
  return t;
}

const say = (html) => { document.getElementById('team-result').innerHTML = html; };

async function open(t, isNew) {
  if (!types.length) {
    const [c, n] = await Promise.all([api('/api/v1/cluster').catch(() => ({})), api('/api/v1/nodes')]);
    types = [...new Set([...(c.instanceTypes || []).map(x => x.name), ...(n.nodes || []).map(x => x.instanceType)])].sort();
  }
  previewed = null;
  editing = isNew ? {} : structuredClone(t);
  document.getElementById('team-editor').innerHTML = editorHTML(t, isNew);
  document.getElementById(isNew ? 't-name' : 't-group').focus();
}

export const actions = {
  newTeam: () => open({ quotas: [{ instanceType: types[0] || '' }] }, true),
  editTeam: el => open(structuredClone(teams.find(t => t.name === el.dataset.team)), false),
  closeTeam: () => { document.getElementById('team-editor').innerHTML = ''; },
  dirty() { previewed = null; document.getElementById('team-save').disabled = true; },
  addQuota() {
    const body = document.querySelector('#quota-table tbody');
    body.insertAdjacentHTML('beforeend', quotaRow({}, Date.now()));
    actions.dirty();
  },
  removeQuota(el) { el.closest('tr').remove(); actions.dirty(); },
  async previewTeam() {
    const t = read();
    try {
      const r = await api('/api/v1/preview', { method: 'POST', body: JSON.stringify({ teams: [t] }) });
      previewed = JSON.stringify(t);
      document.getElementById('team-save').disabled = false;
      say(previewHTML(r, 'team-preview-count'));
    } catch (e) { say(`<p class="error" id="team-error">${esc(e.message)}</p>`); }
  },
  async saveTeam(el, ev, ctx) {
    const t = read();
    if (JSON.stringify(t) !== previewed) { say('<p class="error">Preview the change first.</p>'); return; }
    try {
      await api('/api/v1/teams/' + encodeURIComponent(t.name), { method: 'PUT', body: previewed });
      say(`<p class="ok" id="team-saved">Saved team ${esc(t.name)}; it applies now.</p>`);
      document.getElementById('team-save').disabled = true;
      ctx.rerender();
    } catch (e) { say(`<p class="error" id="team-error">${esc(e.message)}</p>`); }
  },
  askDelete() {
    const name = document.getElementById('t-name').value;
    say(`<div class="confirm" role="alertdialog" aria-labelledby="del-text"><p id="del-text">Delete team ${esc(name)}? Its quotas go back to the cluster; a team with tasks that are not finished cannot be deleted.</p>
      <button type="button" class="danger" data-action="deleteTeam" id="team-delete-yes">Yes, delete ${esc(name)}</button> <button type="button" data-action="dismissDelete">No</button></div>`);
  },
  dismissDelete: () => say(''),
  async deleteTeam(el, ev, ctx) {
    const name = document.getElementById('t-name').value;
    try {
      await api('/api/v1/teams/' + encodeURIComponent(name), { method: 'DELETE' });
      document.getElementById('team-editor').innerHTML = `<p class="ok" id="team-deleted" role="status">Deleted team ${esc(name)}.</p>`;
      ctx.rerender();
    } catch (e) { say(`<p class="error" id="team-error">${esc(e.message)}</p>`); }
  },
};
