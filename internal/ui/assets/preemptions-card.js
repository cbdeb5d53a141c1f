// Recent preemptions, newest first: who was stopped, for whom, both teams,
// why, and what it cost (the work since the victim's last checkpoint and
// the restart the policy charges). From GET /api/v1/preemptions: a member
// reads those that concern its team, another team's task hidden.
import { api } from './api.js';
import { esc, num, whenShort } from './util.js';

export const PREEMPTION_ROWS = 10;

// readPreemptions reads the newest rows for a team ('' for every team the
// token may read).
export function readPreemptions(team) {
  const q = new URLSearchParams({ limit: PREEMPTION_ROWS });
  if (team) q.append('team', team);
  return api('/api/v1/preemptions?' + q);
}

const other = "another team's task";
const task = name => name === other || !name ? esc(name || '-') : `<a href="#task/${encodeURIComponent(name)}">${esc(name)}</a>`;
const why = {
  Reclaim: 'its team borrowed; the lender took its quota back',
  WithinTeamPriority: 'a higher-priority task of its own team needed the quota',
  FairShare: 'a team below its fair share took idle compute back',
  BorrowWithinGroup: 'a higher-priority borrowing task of another team took it',
  QuotaReduced: 'its team’s quota was lowered below what it ran',
  NodeLost: 'a node under it went away or became unhealthy',
  NodeDrained: 'an admin drained a node under it',
};

export function preemptionsCard(r) {
  const rows = (r.preemptions || []).map(p => `<tr data-key="pre-${p.id}" data-preemption="${esc(p.task)}">
    <td>${whenShort(p.at)}</td><td class="victim">${task(p.task)}</td><td>${esc(p.team || 'another team')}</td>
    <td class="preemptor">${p.preemptor ? task(p.preemptor) : '<span class="muted">no task</span>'}</td><td>${p.preemptor ? esc(p.preemptorTeam || 'another team') : '-'}</td>
    <td><span title="${esc(why[p.reason] || '')}">${esc(p.reason)}</span></td><td class="num">${num(p.gpus)}</td>
    <td class="num lost">${num(p.workGPUSeconds)} GPU·s work + ${num(p.restartGPUSeconds)} GPU·s restart</td></tr>`);
  return `<div class="card"><h2>Recent preemptions <span class="muted small">the newest ${PREEMPTION_ROWS}${r.nextBefore ? ' (there are older ones: GET /api/v1/preemptions?before=' + esc(String(r.nextBefore)) + ')' : ''}</span></h2>
  ${rows.length ? `<div class="scroll"><table id="preemptions-table"><thead><tr><th scope="col">When</th><th scope="col">Stopped task</th><th scope="col">Its team</th><th scope="col">Made room for</th><th scope="col">Their team</th><th scope="col">Reason</th><th scope="col" class="num">GPUs</th><th scope="col" class="num">Lost (work since checkpoint + restart)</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>` : '<p class="empty" id="preemptions-empty">No preemptions recorded (suspensions are not preemptions).</p>'}</div>`;
}
