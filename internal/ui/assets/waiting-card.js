// Idle GPUs beside the work that waits, per instance type: the Cluster
// page's answer to "why are GPUs idle while tasks wait". The groups come
// from GET /api/v1/queue?summary=1 (counted on the server once per queue
// change, so 100,000 pending cost the page a few rows); idle GPUs are the
// free GPUs of nodes that take work.
import { esc, num } from './util.js';

// What each wait reason means for idle GPUs, in a few words.
const meaning = {
  QuotaExhausted: 'quota used, the team does not borrow',
  BorrowLimit: 'would borrow past its limit',
  NoIdleCompute: 'quota used, nothing lent to borrow',
  NoNodes: 'no node of its type takes work',
  NoCapacity: 'too few nodes with room',
  HeldForOther: 'free nodes held for a starving task',
  Draining: 'nodes draining for it',
  QueuedForHold: 'queued behind a held task',
  Preempted: 'just preempted',
  NoTopologyFit: 'no single network domain has room',
  WaitingForPayback: 'preemption not yet paid for',
  VictimProtected: 'its victims are protected',
  BackingOff: 'retry backoff after a failure',
  NoMatchingNodes: 'too few nodes with its labels',
  BehindHead: 'behind its team\'s first task (StrictFIFO)',
};

// idleByType sums the free GPUs of schedulable nodes, and the most free on
// one node, per instance type.
function idleByType(nodes) {
  const by = {};
  for (const n of nodes) {
    const t = by[n.instanceType] ||= { idle: 0, most: 0 };
    if (!n.schedulable) continue;
    t.idle += n.freeGPUs;
    t.most = Math.max(t.most, n.freeGPUs);
  }
  return by;
}

// verdict is one sentence on a type's idle GPUs and its waiting tasks.
function verdict(idle, w) {
  if (!w) return idle.idle ? 'Nothing of this type waits.' : 'All allocated; nothing of this type waits.';
  if (!idle.idle) return 'No GPU of this type is idle: the tasks wait for room.';
  if (w.minGPUs > idle.idle) return `The smallest waiting task asks ${num(w.minGPUs)} GPUs; only ${num(idle.idle)} are idle.`;
  return `Some waiting tasks would fit in the idle GPUs (the smallest asks ${num(w.minGPUs)}); the reasons say why they do not start.`;
}

// waitingCard renders the card; summary is the API's answer, or {error}
// when the queue cannot be listed.
export function waitingCard(summary, nodes) {
  if (summary.error) return `<div class="card" id="waiting"><h2>Idle GPUs and waiting tasks</h2><p class="error" id="waiting-error">The queue cannot be listed now: ${esc(summary.error)}</p></div>`;
  const groups = summary.summary || [];
  const idle = idleByType(nodes);
  const byType = {};
  for (const g of groups) {
    const w = byType[g.instanceType] ||= { tasks: 0, gpus: 0, minGPUs: Infinity, groups: [] };
    w.tasks += g.tasks;
    w.gpus += g.gpus;
    w.minGPUs = Math.min(w.minGPUs, g.minGPUs);
    w.groups.push(g);
  }
  const types = [...new Set([...Object.keys(idle), ...Object.keys(byType)])].sort();
  const waiting = Object.values(byType).reduce((a, w) => a + w.tasks, 0);
  const rows = types.map(k => {
    const i = idle[k] || { idle: 0, most: 0 }, w = byType[k];
    const reasons = w ? w.groups.sort((a, b) => b.tasks - a.tasks).map(g =>
      `<li data-reason="${esc(g.reason)}" data-team="${esc(g.team)}"><b>${num(g.tasks)}</b> of ${esc(g.team)} · <abbr title="${esc(meaning[g.reason] || g.reason)}">${esc(g.reason)}</abbr> <span class="muted">(${esc(meaning[g.reason] || '')})</span></li>`).join('') : '';
    return `<tr data-key="${esc(k)}" data-type="${esc(k)}"><th scope="row">${esc(k)}</th><td class="num idle">${num(i.idle)}</td><td class="num">${num(i.most)}</td>
      <td class="num waiting">${num(w?.tasks || 0)}</td><td class="num">${w ? num(w.gpus) : '-'}</td><td class="num smallest">${w ? num(w.minGPUs) : '-'}</td>
      <td><p class="verdict">${esc(verdict(i, w))}</p>${reasons ? `<ul class="reasons">${reasons}</ul>` : ''}</td></tr>`;
  }).join('');
  return `<div class="card" id="waiting"><h2>Idle GPUs and waiting tasks</h2>
    <p class="muted small">${num(waiting)} task${waiting === 1 ? '' : 's'} waiting. Idle: free GPUs on nodes that take work. GPUs asked: all pods of the waiting tasks together.</p>
    <div class="scroll"><table id="waiting-table"><thead><tr><th scope="col">Instance type</th><th scope="col" class="num">GPUs idle</th><th scope="col" class="num">most idle on one node</th>
    <th scope="col" class="num">tasks waiting</th><th scope="col" class="num">GPUs asked</th><th scope="col" class="num">smallest task asks</th><th scope="col">Why they wait (tasks of team · reason)</th></tr></thead>
    <tbody>${rows}</tbody></table></div></div>`;
}
