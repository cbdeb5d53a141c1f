// The dashboard: a page per hash route, refreshed every few seconds.
import { api, token, setToken } from './api.js';
import { bars, lines } from './charts.js';

const main = document.getElementById('main');
const loginForm = main.innerHTML;
const esc = s => String(s ?? '').replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
const ns = team => 'hyperpod-ns-' + team;
let timer = null;

async function trendCard() {
  const win = sessionStorage.getItem('taskgov-window') || '1h';
  const { samples } = await api('/api/v1/trends?window=' + win);
  const byType = {};
  for (const s of samples) (byType[s.instanceType] ||= []).push([new Date(s.at).getTime(), s.gpus ? 100 * s.gpusUsed / s.gpus : (s.vcpu ? 100 * s.vcpuUsed / s.vcpu : 0)]);
  const series = Object.entries(byType).map(([name, points]) => ({ name, points }));
  const chart = series.length ? lines(`Utilisation over the last ${win} (GPUs, or vCPU for CPU-only types)`, series, 100, '%')
    : '<p class="muted" id="trend-empty">No samples yet: the server samples utilisation every minute.</p>';
  return `<div class="card"><p>Window <select id="trend-window">${['1h', '1d', '1w'].map(w => `<option ${w === win ? 'selected' : ''}>${w}</option>`).join('')}</select></p>${chart}</div>`;
}

// deviceCard shows nvidia-smi's per-GPU utilisation, or says it is
// unavailable (the page then shows allocation only).
async function deviceCard() {
  const d = await api('/api/v1/devices');
  if (!d.available) return `<div class="card"><h2>Device utilisation</h2><p class="muted" id="devices-unavailable">${esc(d.reason)}. The figures above are allocation, not measured use.</p></div>`;
  return `<div class="card" id="devices">${bars('Measured GPU utilisation (nvidia-smi)', ['busy', 'idle'], d.gpus.map(g => ({ label: 'GPU ' + g.index, values: [g.utilPercent, 100 - g.utilPercent] })))}
  <table id="device-tasks"><tr><th>task</th><th>team</th><th>GPUs</th><th>mean utilisation</th></tr>
  ${d.tasks.map(t => `<tr><td>${esc(t.task)}</td><td>${esc(t.team)}</td><td>${esc(t.gpus.join(','))}</td><td class="num">${t.meanUtilPercent < 0 ? '-' : t.meanUtilPercent + '%'}</td></tr>`).join('')}</table></div>`;
}

async function cluster() {
  const { nodes } = await api('/api/v1/nodes');
  const devices = await deviceCard();
  const topo = await api('/api/v1/topology?format=text');
  const trend = await trendCard();
  const byType = {};
  for (const n of nodes) {
    const t = byType[n.instanceType] ||= { gpus: 0, free: 0, nodes: 0, healthy: 0 };
    t.nodes++; if (n.healthy) t.healthy++;
    if (n.schedulable) t.gpus += n.gpus;
    t.free += n.schedulable ? n.freeGPUs : 0;
  }
  const total = Object.values(byType).reduce((a, t) => a + t.gpus, 0);
  const used = Object.values(byType).reduce((a, t) => a + t.gpus - t.free, 0);
  return `<div class="kpis">
    <div class="kpi">GPUs <b id="kpi-gpus-total">${total}</b></div>
    <div class="kpi">allocated <b id="kpi-gpus-allocated">${used}</b></div>
    <div class="kpi">utilisation <b id="kpi-util">${total ? Math.round(100 * used / total) : 0}%</b></div>
    <div class="kpi">nodes healthy <b id="kpi-nodes">${nodes.filter(n => n.healthy).length}/${nodes.length}</b></div></div>
  <div class="card">${bars('GPUs by instance group', ['allocated', 'free'], Object.entries(byType).map(([k, t]) => ({ label: k, values: [t.gpus - t.free, t.free] })))}</div>
  ${trend}
  ${devices}
  <div class="card"><h2>Nodes</h2><table id="nodes-table"><tr><th>node</th><th>instance type</th><th>health</th><th>GPUs free</th><th>layer-3</th></tr>
  ${nodes.map(n => `<tr><td>${esc(n.name)}</td><td>${esc(n.instanceType)}</td><td>${!n.healthy ? 'unhealthy' : n.cordoned ? 'cordoned' : n.heldFor ? 'held for ' + esc(n.heldFor) : 'ready'}</td>
  <td class="num">${n.freeGPUs}/${n.gpus}</td><td>${esc((n.labels || {})['topology.k8s.aws/network-node-layer-3'] || '-')}</td></tr>`).join('')}</table></div>
  <div class="card"><h2>Topology</h2><pre id="topology">${esc(topo)}</pre></div>`;
}

// measuredByTeam averages nvidia-smi utilisation over each team's running
// tasks, weighted by their GPU count; null when no device data exists.
function measuredByTeam(d) {
  if (!d.available) return null;
  const acc = {};
  for (const t of d.tasks) {
    if (t.meanUtilPercent < 0) continue;
    const a = acc[t.team] ||= { sum: 0, n: 0 };
    a.sum += t.meanUtilPercent * t.gpus.length; a.n += t.gpus.length;
  }
  return Object.fromEntries(Object.entries(acc).map(([k, a]) => [k, Math.round(a.sum / a.n)]));
}

async function teams() {
  const [{ teams }, { usage }, dev] = await Promise.all([api('/api/v1/teams'), api('/api/v1/usage'), api('/api/v1/devices')]);
  const filter = JSON.parse(sessionStorage.getItem('taskgov-teams-filter') || '{}');
  const all = usage || [];
  const shown = all.filter(u => (!filter.team || u.team === filter.team) && (!filter.type || u.instanceType === filter.type));
  const measured = measuredByTeam(dev);
  const opts = (id, label, values, sel) => `${label} <select id="${id}"><option value="">all</option>${values.map(v => `<option ${v === sel ? 'selected' : ''}>${esc(v)}</option>`).join('')}</select>`;
  const rows = shown.map(u => ({ label: `${u.team} ${u.instanceType}`, values: [u.quotaGPUs, u.usedGPUs, u.borrowedGPUs, u.lentGPUs] }));
  return `<div class="card">${opts('f-uteam', 'Team', [...new Set(all.map(u => u.team))].sort(), filter.team)}
    ${opts('f-utype', 'Instance type', [...new Set(all.map(u => u.instanceType))].sort(), filter.type)}
    ${measured ? '' : `<p class="muted" id="teams-devices-unavailable">${esc(dev.reason)}: the table shows allocation only.</p>`}</div>
  <div class="card">${bars('GPUs per team and instance type', ['quota', 'used', 'borrowed', 'lent'], rows)}</div>
  <div class="card"><table id="teams-table"><tr><th>team</th><th>instance type</th><th>quota</th><th>used</th><th>borrowed</th><th>lent</th><th>measured GPU utilisation</th></tr>
  ${shown.map(u => `<tr data-team="${esc(u.team)}" data-type="${esc(u.instanceType)}"><td>${esc(u.team)}</td><td>${esc(u.instanceType)}</td><td class="num">${u.quotaGPUs}</td>
  <td class="num used">${u.usedGPUs}</td><td class="num">${u.borrowedGPUs}</td><td class="num">${u.lentGPUs}</td>
  <td class="num">${measured && measured[u.team] !== undefined ? measured[u.team] + '%' : '-'}</td></tr>`).join('')}</table></div>
  <div class="card"><table><tr><th>team</th><th>weight</th><th>lending</th><th>borrow limit</th><th>preempt team tasks</th></tr>
  ${teams.map(t => `<tr><td>${esc(t.name)}</td><td class="num">${t.fairShareWeight}</td><td>${esc(t.lending)}</td><td class="num">${t.borrowLimitPercent}%</td><td>${esc(t.preemptTeamTasks)}</td></tr>`).join('')}</table></div>`;
}

async function tasks() {
  const filter = JSON.parse(sessionStorage.getItem('taskgov-filter') || '{}');
  const q = new URLSearchParams({ limit: '1000' });
  if (filter.team) q.append('team', filter.team);
  if (filter.state) q.append('state', filter.state);
  const [{ tasks }, { pending }] = await Promise.all([api('/api/v1/tasks?' + q), api('/api/v1/queue')]);
  const all = tasks || [];
  const count = s => all.filter(t => t.state === s).length;
  const preempted = all.filter(t => t.resumes > 0).length;
  const done = all.filter(t => t.finishedAt && t.startedAt);
  const avg = xs => xs.length ? Math.round(xs.reduce((a, b) => a + b, 0) / xs.length) : 0;
  const run = avg(done.map(t => (new Date(t.finishedAt) - new Date(t.startedAt)) / 1000));
  const wait = avg(all.filter(t => t.startedAt).map(t => (new Date(t.startedAt) - new Date(t.submittedAt)) / 1000));
  const teamNames = [...new Set(all.map(t => t.team))].sort();
  return `<div class="kpis"><div class="kpi">running <b id="count-running">${count('Running')}</b></div>
    <div class="kpi">pending <b id="count-pending">${count('Pending')}</b></div>
    <div class="kpi">preempted at least once <b id="count-preempted">${preempted}</b></div>
    <div class="kpi">avg run <b>${run}s</b></div><div class="kpi">avg wait <b>${wait}s</b></div></div>
  <div class="card">Team <select id="f-team"><option value="">all</option>${teamNames.map(t => `<option ${t === filter.team ? 'selected' : ''}>${esc(t)}</option>`).join('')}</select>
    State <select id="f-state"><option value="">all</option>${['Pending', 'Running', 'Suspended', 'Succeeded', 'Failed', 'Cancelled'].map(s => `<option ${s === filter.state ? 'selected' : ''}>${s}</option>`).join('')}</select></div>
  <div class="card"><h2>Pending queues</h2><table id="queue-table"><tr><th>team</th><th>#</th><th>task</th><th>reason</th><th>why</th></tr>
  ${(pending || []).map(p => `<tr><td>${esc(p.team)}</td><td class="num">${p.position}</td><td><a href="#task/${esc(p.name)}">${esc(p.name)}</a></td><td>${esc(p.reason?.code)}</td><td>${esc((p.why || '').replace(/^waiting: /, ''))}</td></tr>`).join('')}</table></div>
  <div class="card"><h2>Tasks</h2><table id="tasks-table"><tr><th>task</th><th>namespace</th><th>state</th><th>priority</th><th>nodes</th><th>resumes</th><th>message</th></tr>
  ${all.map(t => `<tr data-task="${esc(t.name)}"><td><a href="#task/${esc(t.name)}">${esc(t.name)}</a></td><td>${esc(ns(t.team))}</td><td class="state">${esc(t.state)}</td>
  <td>${esc(t.spec.priority || '-')}</td><td class="num">${t.spec.nodes}</td><td class="num">${t.resumes}</td><td>${esc(t.message || '')}</td></tr>`).join('')}</table></div>`;
}

async function taskDetail(name) {
  const [t, { events }, logs] = await Promise.all([api('/api/v1/tasks/' + encodeURIComponent(name)),
    api('/api/v1/tasks/' + encodeURIComponent(name) + '/events'), api('/api/v1/tasks/' + encodeURIComponent(name) + '/logs')]);
  return `<div class="card"><h1>${esc(t.name)}</h1><p>${esc(ns(t.team))} · <span id="task-state">${esc(t.state)}</span> · priority ${esc(t.spec.priority || '-')} ·
    ${t.spec.nodes} × ${esc(t.spec.instanceType)} · resumes ${t.resumes}</p>${t.why ? `<p>Queue position ${t.position}: ${esc(t.why)}</p>` : ''}
    <p>${(t.placement || []).map(p => `pod ${p.rank} on ${esc(p.node)} GPUs [${(p.gpus || []).join(',')}]`).join('; ')}</p></div>
  <div class="card"><h2>Timeline</h2><table id="events-table"><tr><th>time</th><th>event</th><th>detail</th></tr>
  ${(events || []).map(e => `<tr><td>${new Date(e.at).toLocaleTimeString()}</td><td class="kind">${esc(e.kind)}</td><td>${esc(e.message)}</td></tr>`).join('')}</table></div>
  <div class="card"><h2>Logs (pod 0)</h2><pre id="logs">${esc(logs)}</pre></div>`;
}

async function policies() {
  const p = await api('/api/v1/policy');
  return `<div class="card"><h2>Cluster policy</h2><p class="muted">Admins can edit it here; the change applies live.</p>
  <textarea id="policy-json" rows="22" cols="90">${esc(JSON.stringify(p, null, 2))}</textarea><br>
  <button id="policy-preview" type="button">Preview</button> <button id="policy-save" type="button">Save</button> <span id="policy-result"></span>
  <div id="preview"></div></div>`;
}

// usageColumns are the CSV and table columns of each report view.
const usageColumns = {
  summary: [['date', 'date'], ['team', 'team'], ['instance_type', 'instanceType'], ['gpu_hours', 'gpuHours'], ['borrowed_gpu_hours', 'borrowedGpuHours'], ['vcpu_hours', 'vcpuHours'], ['cost', 'cost']],
  detailed: [['task', 'task'], ['team', 'team'], ['instance_type', 'instanceType'], ['priority', 'priority'], ['start', 'start'], ['end', 'end'], ['status', 'status'],
    ['gpu_hours', 'gpuHours'], ['borrowed_gpu_hours', 'borrowedGpuHours'], ['vcpu_hours', 'vcpuHours'], ['cost', 'cost']],
};

function usageCell(key, v) {
  if (typeof v === 'number') return `<td class="num">${key === 'cost' ? v.toFixed(2) : v.toFixed(3)}</td>`;
  if (key === 'start' || key === 'end') return `<td>${v ? new Date(v).toLocaleString() : '-'}</td>`;
  return `<td>${esc(v || '-')}</td>`;
}

async function usage() {
  const view = sessionStorage.getItem('taskgov-usage-view') || 'summary';
  const to = new Date(Date.now() + 3600e3).toISOString(), from = new Date(Date.now() - 7 * 86400e3).toISOString();
  const rep = await api(`/api/v1/usage/report?from=${from}&to=${to}&type=${view}`);
  const rows = (view === 'detailed' ? rep.detailed : rep.summary) || [];
  const cols = usageColumns[view];
  window.taskgovUsage = { cols, rows };
  return `<div class="card"><p>${esc(rep.header.cluster)} · ${esc(rep.header.type)} · last 7 days · missing periods: ${rep.header.missingPeriods.length}</p>
  View <select id="usage-view">${['summary', 'detailed'].map(v => `<option ${v === view ? 'selected' : ''}>${v}</option>`).join('')}</select>
  <button id="usage-csv" type="button">Export CSV</button>
  <table id="usage-table" data-view="${view}"><tr>${cols.map(([h]) => `<th>${h.replace(/_/g, ' ')}</th>`).join('')}</tr>
  ${rows.map(r => `<tr>${cols.map(([, k]) => usageCell(k, r[k])).join('')}</tr>`).join('')}</table></div>`;
}

const pages = { cluster, teams, tasks, policies, usage };

async function render() {
  clearTimeout(timer);
  if (!token()) { showLogin(); return; }
  document.getElementById('nav').hidden = false;
  const [page, arg] = (location.hash.slice(1) || 'cluster').split('/');
  document.querySelectorAll('nav a').forEach(a => a.classList.toggle('active', a.hash === '#' + page));
  try {
    const html = page === 'task' ? await taskDetail(decodeURIComponent(arg)) : await (pages[page] || cluster)();
    if (document.activeElement?.id !== 'policy-json') main.innerHTML = html;
    wire(page);
    main.dataset.page = page;
  } catch (e) {
    main.innerHTML = `<p class="error" id="page-error">${esc(e.message)}</p>`;
    if (/token/.test(e.message)) { setToken(''); showLogin(e.message); return; }
  }
  if (page !== 'policies') timer = setTimeout(render, 2000); // live updates
}

function wire(page) {
  if (page === 'cluster') {
    document.getElementById('trend-window').onchange = ev => { sessionStorage.setItem('taskgov-window', ev.target.value); render(); };
  }
  if (page === 'teams') {
    for (const id of ['f-uteam', 'f-utype']) {
      document.getElementById(id).onchange = () => {
        sessionStorage.setItem('taskgov-teams-filter', JSON.stringify({ team: document.getElementById('f-uteam').value, type: document.getElementById('f-utype').value }));
        render();
      };
    }
  }
  if (page === 'tasks') {
    for (const id of ['f-team', 'f-state']) {
      document.getElementById(id).onchange = () => {
        sessionStorage.setItem('taskgov-filter', JSON.stringify({ team: document.getElementById('f-team').value, state: document.getElementById('f-state').value }));
        render();
      };
    }
  }
  if (page === 'policies') {
    document.getElementById('policy-preview').onclick = async () => {
      const box = document.getElementById('preview');
      try {
        const r = await api('/api/v1/preview', { method: 'POST', body: JSON.stringify({ policy: JSON.parse(document.getElementById('policy-json').value) }) });
        box.innerHTML = `<h3>If saved now</h3><p id="preview-count">${r.preemptions.length} preemption(s), ${(r.admissions || []).length} admission(s)</p>
          <ul>${r.preemptions.map(p => `<li>preempt ${esc(p.task)} (${esc(p.team)}): ${esc(p.reason)}${p.for ? ' for ' + esc(p.for) : ''}</li>`).join('')}
          ${(r.admissions || []).map(a => `<li>admit ${esc(a.task)} (${esc(a.team)})</li>`).join('')}</ul>`;
      } catch (e) { box.innerHTML = `<p class="error">${esc(e.message)}</p>`; }
    };
    document.getElementById('policy-save').onclick = async () => {
      const out = document.getElementById('policy-result');
      try { await api('/api/v1/policy', { method: 'PUT', body: document.getElementById('policy-json').value }); out.textContent = 'saved'; }
      catch (e) { out.textContent = e.message; out.className = 'error'; }
    };
  }
  if (page === 'usage') {
    document.getElementById('usage-view').onchange = ev => { sessionStorage.setItem('taskgov-usage-view', ev.target.value); render(); };
    document.getElementById('usage-csv').onclick = () => {
      const { cols, rows } = window.taskgovUsage;
      const quote = v => /[",\n]/.test(String(v ?? '')) ? '"' + String(v).replace(/"/g, '""') + '"' : String(v ?? '');
      const head = cols.map(([h]) => h).join(',') + '\n';
      const body = rows.map(r => cols.map(([, k]) => quote(r[k])).join(',')).join('\n');
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([head + body + '\n'], { type: 'text/csv' }));
      a.download = 'taskgov-usage.csv'; a.click();
    };
  }
}

function showLogin(message) {
  document.getElementById('nav').hidden = true;
  main.innerHTML = loginForm;
  if (message) document.getElementById('login-error').textContent = message;
  document.getElementById('login').onsubmit = async ev => {
    ev.preventDefault();
    setToken(document.getElementById('token').value.trim());
    try { await api('/api/v1/policy'); location.hash = location.hash || '#cluster'; render(); }
    catch (e) { setToken(''); document.getElementById('login-error').textContent = e.message; }
  };
}

document.getElementById('logout').onclick = () => { setToken(''); render(); };
window.addEventListener('hashchange', render);
render();
