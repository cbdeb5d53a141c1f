// Tasks: the figures over the chosen team, each team's pending queue (its
// first rows and its length), and one page of tasks, filtered, searched and
// sorted on the server (GET /api/v1/tasks?q=&sort=&order=&offset=), so it
// serves 100,000 tasks as fast as 10. The figures come from a request of
// their own (summary=1), which the table does not wait for: counting them
// walks every task of the team (seconds at 100,000 tasks, counted at most
// every 10 s by the server), while the table's page comes from an index.
import { api } from './api.js';
import { esc, ns, badge, dur, whenShort, num, options, saved, save, states, withActors, startText } from './util.js';
import { readPreemptions, preemptionsCard } from './preemptions-card.js';

const QUEUE_ROWS = 10; // per team
const columns = [ // [sort key, header, cell]
  ['name', 'Task', t => `<a href="#task/${encodeURIComponent(t.name)}">${esc(t.name)}</a>`],
  ['team', 'Namespace', t => esc(ns(t.team))],
  ['state', 'State', t => badge(t.state)],
  ['priority', 'Priority', t => esc(t.spec.priority || '-')],
  ['instanceType', 'Instance type', t => esc(t.spec.instanceType)],
  ['nodes', 'Pods', t => t.spec.nodes || 1, 'num'],
  ['gpus', 'GPUs', t => num(t.gpus), 'num'],
  ['vcpu', 'vCPU', t => num(t.vcpu, 1), 'num'],
  ['memory', 'Memory (GiB)', t => num(t.memoryGiB, 1), 'num'],
  ['submittedAt', 'Submitted', t => whenShort(t.submittedAt)],
  ['resumes', 'Requeues', t => t.resumes, 'num'],
];
const defaults = { team: '', state: '', q: '', sort: 'submittedAt', order: 'desc', offset: 0, limit: 50 };
let searchTimer = null;
let figures = { key: null, summary: null, asking: false }; // the last figures read, and for whom

function filter() { return saved('tasks', defaults); }
function setFilter(ctx, change) {
  save('tasks', { ...filter(), offset: 0, ...change });
  ctx.rerender();
}

async function render(ctx) {
  const f = filter();
  const q = new URLSearchParams({ sort: f.sort, order: f.order, offset: f.offset, limit: f.limit });
  if (f.team) q.append('team', f.team);
  if (f.state) q.append('state', f.state);
  if (f.q) q.set('q', f.q);
  const teamsRead = api('/api/v1/teams'); // the queue reads need the team names, not the task page
  const [page, { teams }, queues, preempted] = await Promise.all([api('/api/v1/tasks?' + q), teamsRead,
    teamsRead.then(({ teams }) => queueHeads(f.team ? [f.team] : teams.map(t => t.name))), readPreemptions(f.team)]);
  const s = summaryOf(ctx, f.team), c = s?.counts || {};
  const fig = v => s ? v : '…';
  const scope = f.team ? `team ${esc(f.team)}` : (ctx.me.role === 'admin' || !ctx.me.team ? 'all teams' : `team ${esc(ctx.me.team)}`);
  const teamNames = teams.map(t => t.name).sort();
  const from = page.total ? page.offset + 1 : 0, to = page.offset + page.tasks.length;
  const filtered = f.state || f.q;
  return `<h1>Tasks</h1>
  <section class="kpis" aria-label="Figures over ${scope}, every state">
    <div class="kpi">running <b id="count-running">${fig(num(c.Running || 0))}</b></div>
    <div class="kpi">pending <b id="count-pending">${fig(num(c.Pending || 0))}</b></div>
    <div class="kpi">suspended <b id="count-suspended">${fig(num(c.Suspended || 0))}</b></div>
    <div class="kpi">preempted at least once <b id="count-preempted">${fig(num(s?.preempted))}</b></div>
    <div class="kpi">mean wait to first start <b id="mean-wait">${fig(dur(s?.meanWaitSeconds))}</b></div>
    <div class="kpi">mean run (finished) <b id="mean-run">${fig(dur(s?.meanRunSeconds))}</b></div>
    <p class="muted small">Over ${scope}, all states; pending tasks count their wait so far.</p>
  </section>
  <form class="card filters" data-submit="noop" role="search">
    <label for="f-q">Search by name</label><input id="f-q" type="search" value="${esc(f.q)}" data-input="search" placeholder="part of a task name" autocomplete="off">
    <label for="f-team">Team</label><select id="f-team" data-change="team">${options(teamNames, f.team, 'all teams')}</select>
    <label for="f-state">State</label><select id="f-state" data-change="state">${options(states, f.state, 'all states')}</select>
    <label for="f-limit">Rows</label><select id="f-limit" data-change="limit">${options(['25', '50', '100', '200'], String(f.limit))}</select>
    ${f.team || filtered ? '<button type="button" class="ghost" data-action="clear" id="f-clear">Clear filters</button>' : ''}
  </form>
  <div class="card"><h2>Tasks <span class="muted small" id="tasks-range">${num(from)}–${num(to)} of ${num(page.total)}</span></h2>
  ${page.total === 0 ? `<p class="empty" id="tasks-empty">No tasks match${f.team ? ` team ${esc(f.team)}` : ''}${f.state ? `, state ${esc(f.state)}` : ''}${f.q ? `, name containing “${esc(f.q)}”` : ''}. <button type="button" class="ghost" data-action="clear">Clear filters</button></p>` : ''}
  <div class="scroll"><table id="tasks-table" data-total="${page.total}">
  <thead><tr>${columns.map(([k, h, , cls]) => `<th scope="col" class="${cls || ''}" aria-sort="${f.sort === k ? (f.order === 'asc' ? 'ascending' : 'descending') : 'none'}"><button type="button" class="sort" data-action="sort" data-key="${k}" id="sort-${k}">${h}<span aria-hidden="true">${f.sort === k ? (f.order === 'asc' ? ' ▲' : ' ▼') : ''}</span></button></th>`).join('')}<th scope="col">Why it waits, message</th></tr></thead>
  <tbody>${page.tasks.map(t => `<tr data-task="${esc(t.name)}" data-key="${esc(t.name)}">${columns.map(([k, , cell, cls]) => `<td class="${k} ${cls || ''}">${cell(t)}</td>`).join('')}<td class="msg">${message(t, page.actors)}</td></tr>`).join('')}</tbody></table></div>
  <nav class="pager" aria-label="Pages of tasks">
    <button type="button" data-action="page" data-to="first" ${f.offset === 0 ? 'disabled' : ''}>« First</button>
    <button type="button" data-action="page" data-to="prev" id="page-prev" ${f.offset === 0 ? 'disabled' : ''}>‹ Previous</button>
    <span>page ${Math.floor(f.offset / f.limit) + 1} of ${Math.max(1, Math.ceil(page.total / f.limit))}</span>
    <button type="button" data-action="page" data-to="next" id="page-next" ${to >= page.total ? 'disabled' : ''}>Next ›</button>
    <button type="button" data-action="page" data-to="last" ${to >= page.total ? 'disabled' : ''}>Last »</button>
  </nav></div>
  ${queueCard(queues)}
  ${preemptionsCard(preempted)}`;
}

// summaryOf returns the last figures read for this token and team (null
// before the first) and asks for new ones unless a request is under way;
// new figures render the page again.
function summaryOf(ctx, team) {
  const key = `${ctx.me?.id}/${team}`;
  if (figures.key !== key) figures = { key, summary: null, asking: false };
  if (!figures.asking) {
    figures.asking = true;
    const q = new URLSearchParams({ limit: 1, summary: '1' });
    if (team) q.append('team', team);
    api('/api/v1/tasks?' + q).then(r => {
      if (figures.key !== key) return;
      const changed = JSON.stringify(r.summary) !== JSON.stringify(figures.summary);
      figures = { key, summary: r.summary, asking: false };
      if (changed) ctx.rerender();
    }, () => { if (figures.key === key) figures.asking = false; }); // the table's request reports errors and outages
  }
  return figures.summary;
}

// message is a row's last cell: for a waiting task, its place in its
// team's queue and why it waits, then the task's own message (a
// preemption's, say).
function message(t, actors) {
  const why = t.why ? `<span class="why">#${num(t.position)} in the queue of team ${esc(t.team)}: ${esc(t.why.replace(/^waiting: /, ''))}</span>` : '';
  const msg = withActors(t.message || '', actors);
  return why && msg ? `${why}<br>${msg}` : why || msg;
}

// queueHeads reads the first QUEUE_ROWS of each team's queue and its
// length: one page per team (GET /api/v1/queue?team=&limit=), never the
// whole queue, which at 100,000 pending is tens of megabytes per refresh.
async function queueHeads(teams) {
  const heads = await Promise.all(teams.sort().map(team =>
    api(`/api/v1/queue?team=${encodeURIComponent(team)}&limit=${QUEUE_ROWS}`).then(r => ({ team, pending: r.pending || [], total: r.total || 0 }))));
  return heads.filter(h => h.total > 0);
}

function queueCard(queues) {
  const rows = queues.flatMap(({ team, pending: ps, total }) => [
    ...ps.map(p => `<tr data-key="q-${esc(p.name)}"><td>${esc(team)}</td><td class="num">${num(p.position)}</td><td><a href="#task/${encodeURIComponent(p.name)}">${esc(p.name)}</a></td><td>${esc(p.reason?.code)}</td><td>${esc((p.why || '').replace(/^waiting: /, ''))}</td><td class="start-cell">${startText(p.start)}</td></tr>`),
    ...(total > ps.length ? [`<tr data-key="more-${esc(team)}"><td>${esc(team)}</td><td colspan="5" class="muted">and ${num(total - ps.length)} more waiting (filter by state Pending to list them)</td></tr>`] : []),
  ]);
  return `<div class="card"><h2>Pending queues</h2>${rows.length ? `<div class="scroll"><table id="queue-table"><thead><tr><th scope="col">Team</th><th scope="col" class="num">#</th><th scope="col">Task</th><th scope="col">Reason</th><th scope="col">Why it waits</th><th scope="col">When will it start?</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>` : '<p class="empty" id="queue-empty">Nothing is waiting.</p>'}</div>`;
}

const actions = {
  noop() {},
  search(el, ev, ctx) {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => setFilter(ctx, { q: el.value.trim() }), 250);
  },
  team: (el, ev, ctx) => setFilter(ctx, { team: el.value }),
  state: (el, ev, ctx) => setFilter(ctx, { state: el.value }),
  limit: (el, ev, ctx) => setFilter(ctx, { limit: +el.value }),
  clear: (el, ev, ctx) => { document.getElementById('f-q').value = ''; setFilter(ctx, { team: '', state: '', q: '' }); },
  sort(el, ev, ctx) {
    const f = filter(), k = el.dataset.key;
    setFilter(ctx, { sort: k, order: f.sort === k && f.order === 'asc' ? 'desc' : 'asc' });
  },
  page(el, ev, ctx) {
    const f = filter(), total = +document.getElementById('tasks-table').dataset.total;
    const last = Math.max(0, Math.floor((total - 1) / f.limit) * f.limit);
    const to = { first: 0, prev: Math.max(0, f.offset - f.limit), next: Math.min(last, f.offset + f.limit), last }[el.dataset.to];
    save('tasks', { ...f, offset: to });
    ctx.rerender();
  },
};

export default { title: () => 'Tasks', render, actions };
