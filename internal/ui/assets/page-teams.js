// Teams: each team's quota, use, borrowing and lending per instance type in
// GPUs, vCPU and memory, which team is over its quota and whose unused
// quota the borrowers draw on, a chart of one resource, the teams' settings, and
// for admins the allocation editor (team-form.js).
import { api } from './api.js';
import { esc, num, options, saved, save } from './util.js';
import { bars } from './charts.js';
import * as form from './team-form.js';

const res = { gpus: ['GPUs', 'GPUs', ''], vcpu: ['vCPU', 'VCPU', ''], memory: ['memory (GiB)', 'MemGiB', ' GiB'] };

function measuredByTeam(d) {
  if (!d.available) return null;
  const acc = {};
  for (const t of d.tasks || []) {
    if (t.meanUtilPercent < 0) continue;
    const a = acc[t.team] ||= { sum: 0, n: 0 };
    a.sum += t.meanUtilPercent * t.gpus.length; a.n += t.gpus.length;
  }
  return Object.fromEntries(Object.entries(acc).map(([k, a]) => [k, Math.round(a.sum / a.n)]));
}

async function render(ctx) {
  const [{ teams }, { usage }, dev] = await Promise.all([api('/api/v1/teams'), api('/api/v1/usage'), api('/api/v1/devices')]);
  const f = saved('teams', { team: '', type: '', resource: 'gpus' });
  const all = usage || [];
  const shown = all.filter(u => (!f.team || u.team === f.team) && (!f.type || u.instanceType === f.type));
  const measured = measuredByTeam(dev);
  const [rname, rkey, unit] = res[f.resource] || res.gpus;
  const v = (u, what) => u[what + (rkey === 'GPUs' ? 'GPUs' : rkey)];
  // A quota for an instance type the cluster has no nodes of lends nothing: it is not present.
  const cell = (u, q, used, b, l) => `<td class="num">${num(used, 1)} / ${num(q, 1)}</td><td class="num">${num(b, 1)}</td><td class="num">${u.notPresent ? '<span class="muted" title="the cluster has no nodes of this type">not present</span>' : num(l, 1)}</td>`;
  const over = u => u.borrowedGPUs > 0 || u.borrowedVCPU > 0 || u.borrowedMemGiB > 0 ? ' <span class="over" title="it uses more than its quota: the rest is borrowed">over quota</span>' : '';
  form.setTeams(teams);
  return `<h1>Teams</h1>
  <form class="card filters" data-submit="noop">
    <label for="f-uteam">Team</label><select id="f-uteam" data-change="filter">${options([...new Set(all.map(u => u.team))].sort(), f.team, 'all teams')}</select>
    <label for="f-utype">Instance type</label><select id="f-utype" data-change="filter">${options([...new Set(all.map(u => u.instanceType))].sort(), f.type, 'all types')}</select>
    <label for="f-ures">Chart</label><select id="f-ures" data-change="filter">${options(Object.entries(res).map(([k, r]) => [k, r[0]]), f.resource)}</select>
  </form>
  ${measured ? '' : `<p class="muted" id="teams-devices-unavailable">${esc(dev.reason)}: the table shows allocation only.</p>`}
  <div class="card"><h2>Allocation and use</h2>
  ${shown.length ? '' : '<p class="empty" id="teams-empty">No team has quota or use that matches the filter.</p>'}
  <div class="scroll"><table id="teams-table"><thead>
    <tr><th scope="col" rowspan="2">Team</th><th scope="col" rowspan="2">Instance type</th><th scope="colgroup" colspan="3" class="grp">GPUs</th><th scope="colgroup" colspan="3" class="grp">vCPU</th><th scope="colgroup" colspan="3" class="grp">Memory (GiB)</th><th scope="col" rowspan="2" class="num">Measured GPU utilisation</th></tr>
    <tr>${'<th scope="col" class="num">used / quota</th><th scope="col" class="num">borrowed</th><th scope="col" class="num"><abbr title="unused quota this team offers to its lending group; borrowers draw on it, but it may be borrowed by no one">offered</abbr></th>'.repeat(3)}</tr></thead><tbody>
  ${shown.map(u => `<tr data-team="${esc(u.team)}" data-type="${esc(u.instanceType)}" data-key="${esc(u.team + '/' + u.instanceType)}" data-used-gpus="${u.usedGPUs}"><th scope="row">${esc(u.team)}${over(u)}</th><td>${esc(u.instanceType)}</td>
    ${cell(u, u.quotaGPUs, u.usedGPUs, u.borrowedGPUs, u.lentGPUs)}${cell(u, u.quotaVCPU, u.usedVCPU, u.borrowedVCPU, u.lentVCPU)}${cell(u, u.quotaMemGiB, u.usedMemGiB, u.borrowedMemGiB, u.lentMemGiB)}
    <td class="num">${measured && measured[u.team] !== undefined ? measured[u.team] + '%' : '-'}</td></tr>`).join('')}</tbody></table></div>
  ${borrowing(all, teams, ctx.admin() || !ctx.me.team)}
  ${shown.length ? bars('teams-chart', `${rname} per team and instance type`, ['quota', 'used', 'borrowed', 'offered'],
    shown.map(u => ({ label: `${u.team} · ${u.instanceType}`, values: [v(u, 'quota'), v(u, 'used'), v(u, 'borrowed'), v(u, 'lent')] })), unit) : ''}</div>
  <div class="card"><h2>Settings</h2>${ctx.admin() ? '<p><button type="button" data-action="newTeam" id="team-new">New team…</button></p>' : ''}
  <div class="scroll"><table id="team-settings"><thead><tr><th scope="col">Team</th><th scope="col">Lending group</th><th scope="col" class="num">Fair-share weight</th><th scope="col">Lending</th><th scope="col" class="num">Borrow limit</th><th scope="col">Preempt own lower-priority tasks</th><th scope="col">Quotas</th>${ctx.admin() ? '<th scope="col"><span class="sr-only">Edit</span></th>' : ''}</tr></thead><tbody>
  ${teams.map(t => `<tr data-key="${esc(t.name)}"><th scope="row">${esc(t.name)}</th><td>${esc(t.group)}</td><td class="num">${t.fairShareWeight}</td><td>${esc(t.lending)}</td><td class="num">${t.borrowLimitPercent}%</td><td>${t.preemptTeamTasks === 'Never' ? 'never' : 'yes'}</td>
    <td>${(t.quotas || []).map(form.quotaText).map(esc).join('; ') || '-'}</td>${ctx.admin() ? `<td><button type="button" class="ghost" data-action="editTeam" data-team="${esc(t.name)}" id="edit-${esc(t.name)}">Edit…</button></td>` : ''}</tr>`).join('')}</tbody></table></div>
  ${ctx.admin() ? '<div id="team-editor" data-keep></div>' : ''}</div>`;
}

// borrowing says, per lending group and instance type, who borrows GPUs
// and whose unused quota they draw on. Borrowers take from the group's
// pool, not from one lender, so the pool's offers are named together; what
// is borrowed beyond them is capacity no quota covers.
function borrowing(usage, teams, seesAll) {
  const groupOf = Object.fromEntries(teams.map(t => [t.name, t.group || 'default']));
  const pools = {};
  for (const u of usage) {
    const p = pools[groupOf[u.team] + '\u0000' + u.instanceType] ||= { group: groupOf[u.team], type: u.instanceType, borrowers: [], lenders: [], offered: 0, borrowed: 0 };
    if (u.borrowedGPUs > 0) { p.borrowers.push(u); p.borrowed += u.borrowedGPUs; }
    if (u.lentGPUs > 0) { p.lenders.push(u); p.offered += u.lentGPUs; }
  }
  const lines = Object.values(pools).filter(p => p.borrowed > 0).sort((a, b) => (a.type + a.group).localeCompare(b.type + b.group)).map(p => {
    const who = p.borrowers.map(u => `${esc(u.team)} borrows ${num(u.borrowedGPUs)} GPUs`).join(', ');
    if (!seesAll) return `<li data-type="${esc(p.type)}">${esc(p.type)}: ${who}, drawing on other teams' unused quota or capacity no quota covers.</li>`;
    const from = p.lenders.length ? `the unused quota that ${p.lenders.map(u => `${esc(u.team)} offers (${num(u.lentGPUs)} GPUs)`).join(', ')}` : 'capacity no quota covers';
    const beyond = p.lenders.length && p.borrowed > p.offered ? `; ${num(p.borrowed - p.offered)} GPUs of it come from capacity no quota covers` : '';
    return `<li data-type="${esc(p.type)}" data-group="${esc(p.group)}">${esc(p.type)}${teams.some(t => t.group && t.group !== 'default') ? ` (group ${esc(p.group)})` : ''}: ${who}, drawing on ${from}${beyond}.</li>`;
  });
  return `<h3>Borrowing</h3>${lines.length ? `<ul id="borrowing">${lines.join('')}</ul>` : `<p class="empty" id="borrowing-none">${seesAll ? 'No team borrows now: every team runs within its quota.' : 'No team you can see borrows now.'}</p>`}`;
}

const actions = {
  noop() {},
  filter(el, ev, ctx) {
    save('teams', { team: document.getElementById('f-uteam').value, type: document.getElementById('f-utype').value, resource: document.getElementById('f-ures').value });
    ctx.rerender();
  },
  ...form.actions,
};

export default { title: () => 'Teams', render, actions };
