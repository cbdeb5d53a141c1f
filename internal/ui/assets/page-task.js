// One task: what it asked for, where it runs, where it is in its team's
// queue and why it waits, its timeline (dated; runs of checkpoints folded
// into one row), the logs of every pod, and the actions its owner may take, each
// confirmed first.
import { api } from './api.js';
import { esc, ns, badge, when, num, request, withActors, startText } from './util.js';

const MAX_PODS = 32; // logs shown per task
const openPods = new Set(['0']);
let pendingAction = null; // {task, action, arg} awaiting confirmation
let result = null; // {task, ok, text}

async function render(ctx, name) {
  const path = '/api/v1/tasks/' + encodeURIComponent(name);
  const [t, ev, policy] = await Promise.all([api(path), api(path + '/events'), api('/api/v1/policy')]);
  const [rows, queue] = await Promise.all([api('/api/v1/tasks?limit=1000&q=' + encodeURIComponent(name)).catch(() => ({ tasks: [] })),
    t.why ? api(`/api/v1/queue?team=${encodeURIComponent(t.team)}&limit=1`).catch(() => null) : null]);
  const row = rows.tasks.find(r => r.name === t.name);
  const pods = Math.min(t.spec.nodes || 1, MAX_PODS);
  const logs = await Promise.all([...Array(pods).keys()].map(i =>
    openPods.has(String(i)) ? api(path + '/logs?rank=' + i).catch(e => '(' + e.message + ')') : Promise.resolve(null)));
  const actors = ev.actors || {};
  const terminal = ['Succeeded', 'Failed', 'Cancelled'].includes(t.state);
  return `<p class="crumbs"><a href="#tasks">Tasks</a> › ${esc(t.name)}</p>
  <h1>${esc(t.name)}</h1>
  <div class="card"><dl class="facts">
    <dt>Namespace</dt><dd>${esc(ns(t.team))}</dd>
    <dt>State</dt><dd id="task-state" data-state="${esc(t.state)}">${badge(t.state)}</dd>
    <dt>Priority</dt><dd>${esc(t.spec.priority || '-')}</dd>
    <dt>Request</dt><dd id="task-request">${request(t.spec)}${row ? ` — in all ${num(row.gpus)} GPU${row.gpus === 1 ? '' : 's'}, ${num(row.vcpu, 1)} vCPU, ${num(row.memoryGiB, 1)} GiB` : ''}</dd>
    <dt>Submitted</dt><dd>${when(t.submittedAt)}</dd>
    <dt>Last started</dt><dd>${when(t.startedAt)}</dd>
    ${t.finishedAt ? `<dt>Finished</dt><dd>${when(t.finishedAt)}</dd>` : ''}
    <dt>Requeues</dt><dd>${t.resumes} (of which failure retries: ${t.retries})</dd>
    ${t.message ? `<dt>Message</dt><dd id="task-message">${withActors(t.message, actors)}</dd>` : ''}
    ${t.why ? `<dt>Queue</dt><dd id="task-queue">position ${num(t.position)}${queue ? ` of ${num(queue.total)}` : ''} in the queue of team ${esc(t.team)}: ${esc(t.why.replace(/^waiting: /, ''))}</dd>` : ''}
    ${t.start ? `<dt>When will it start?</dt><dd id="task-start">${startText(t.start)}</dd>` : ''}
    ${(t.placement || []).length ? `<dt>Pods</dt><dd>${t.placement.map(p => `pod ${p.rank} on ${esc(p.node)}${(p.gpus || []).length ? ` (GPUs ${p.gpus.join(', ')})` : ''}`).join('; ')}</dd>` : ''}
  </dl></div>
  ${ctx.canWrite(t.team) && !terminal ? actionsCard(t, policy) : ''}
  <div class="card"><h2>Timeline</h2><div class="scroll"><table id="events-table"><thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Detail</th></tr></thead><tbody>
  ${timeline(ev.events || []).map(e => `<tr data-key="e${e.id}"><td class="nowrap">${when(e.at)}</td><td class="kind">${esc(e.kind)}</td><td>${e.count > 1 ? `${num(e.count)} × ${withActors(e.message, actors)}, the first at ${esc(when(e.first))}` : withActors(e.message, actors)}</td></tr>`).join('')}</tbody></table></div></div>
  <div class="card"><h2>Logs</h2>${t.spec.nodes > MAX_PODS ? `<p class="muted">Showing the first ${MAX_PODS} of ${t.spec.nodes} pods.</p>` : ''}
  ${logs.map((l, i) => `<details class="pod-logs" data-pod="${i}" id="pod-${i}"${openPods.has(String(i)) ? ' open' : ''}><summary>Pod ${i}${t.placement?.[i] ? ' on ' + esc(t.placement[i].node) : ''}</summary>
    <pre class="logs" id="logs-${i}" tabindex="0">${l === null ? '' : esc(l) || '(no output yet)'}</pre></details>`).join('')}</div>`;
}

// timeline folds each run of consecutive checkpoint events with the same
// message into one row (its last, with the count and the first's time): a
// task that checkpoints every few seconds would otherwise bury its
// admissions and preemptions under them.
function timeline(events) {
  const out = [];
  for (const e of events) {
    const prev = out[out.length - 1];
    const ckpt = e.kind.toLowerCase() === 'checkpoint';
    if (ckpt && prev?.kind === e.kind && prev.message === e.message) {
      out[out.length - 1] = { ...e, count: prev.count + 1, first: prev.first };
    } else {
      out.push({ ...e, count: 1, first: e.at });
    }
  }
  return out;
}

function actionsCard(t, policy) {
  const can = { cancel: true, suspend: ['Pending', 'Running'].includes(t.state), resume: t.state === 'Suspended' };
  const classes = (policy.priorityClasses || []).map(c => c.name);
  const pa = pendingAction?.task === t.name ? pendingAction : null;
  const label = { cancel: 'Cancel the task', suspend: 'Suspend it (its pods stop; it keeps its place)', resume: 'Resume it', priority: 'Change its priority to ' + (pa?.arg || '') };
  return `<div class="card" id="task-actions"><h2>Actions</h2>
    <div class="row">
    ${can.cancel ? '<button type="button" class="danger" data-action="ask" data-act="cancel" id="act-cancel">Cancel…</button>' : ''}
    ${can.suspend ? '<button type="button" data-action="ask" data-act="suspend" id="act-suspend">Suspend…</button>' : ''}
    ${can.resume ? '<button type="button" data-action="ask" data-act="resume" id="act-resume">Resume…</button>' : ''}
    ${classes.length ? `<label for="act-priority-class">Priority</label><select id="act-priority-class">${classes.map(c => `<option${c === t.spec.priority ? ' selected' : ''}>${esc(c)}</option>`).join('')}</select>
      <button type="button" data-action="ask" data-act="priority" id="act-priority">Change priority…</button>` : ''}
    </div>
    ${pa ? `<div class="confirm" role="alertdialog" aria-labelledby="confirm-text" id="confirm"><p id="confirm-text">${esc(label[pa.action])} — ${esc(t.name)}?</p>
      <button type="button" class="danger" data-action="confirm" id="confirm-yes">Yes, ${esc(pa.action)}</button> <button type="button" data-action="dismiss" id="confirm-no">No, keep it</button></div>` : ''}
    ${result?.task === t.name ? `<p id="action-result" class="${result.ok ? 'ok' : 'error'}" role="status">${esc(result.text)}</p>` : ''}
  </div>`;
}

const actions = {
  ask(el, ev, ctx) {
    const name = decodeURIComponent(location.hash.split('/').slice(1).join('/'));
    pendingAction = { task: name, action: el.dataset.act, arg: el.dataset.act === 'priority' ? document.getElementById('act-priority-class').value : '' };
    result = null;
    ctx.rerender();
  },
  dismiss(el, ev, ctx) { pendingAction = null; ctx.rerender(); },
  async confirm(el, ev, ctx) {
    const pa = pendingAction;
    pendingAction = null;
    try {
      await api(`/api/v1/tasks/${encodeURIComponent(pa.task)}/${pa.action}`, { method: 'POST', body: pa.action === 'priority' ? JSON.stringify({ priority: pa.arg }) : undefined });
      result = { task: pa.task, ok: true, text: `Done: ${pa.action}${pa.arg ? ' ' + pa.arg : ''}.` };
    } catch (e) { result = { task: pa.task, ok: false, text: e.message }; }
    ctx.rerender();
  },
  toggle(el, ev, ctx) {
    if (!el.matches?.('details.pod-logs')) return;
    const had = openPods.has(el.dataset.pod);
    if (el.open) openPods.add(el.dataset.pod); else openPods.delete(el.dataset.pod);
    if (el.open && !had) ctx.rerender();
  },
};

export default { title: name => name, render, actions };
