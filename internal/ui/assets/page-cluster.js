// Cluster: capacity and allocation now (GPUs, vCPU, memory; per instance
// group), idle GPUs beside the tasks that wait and why (waiting-card.js),
// allocation trends on a real time axis, measured utilisation against
// allocation, nodes and topology.
import { api, OutageError } from './api.js';
import { esc, num, options, saved, save } from './util.js';
import { bars, timeChart } from './charts.js';
import { utilCard } from './util-card.js';
import { waitingCard } from './waiting-card.js';

const windows = { '1h': 3600e3, '1d': 86400e3, '1w': 7 * 86400e3 };
const resources = { gpus: ['GPUs', 'gpus', 'gpusUsed'], vcpu: ['vCPU', 'vcpu', 'vcpuUsed'], memory: ['memory', 'memGiB', 'memUsedGiB'] };
let trend = null; // the last trend response, drawn by after()

// totals counts a node's capacity when it can take work or still runs some
// (a cordoned node with tasks stays in the figures until it drains).
export function totals(nodes) {
  const by = {}, all = { nodes: 0, healthy: 0, gpus: 0, gpusUsed: 0, vcpu: 0, vcpuUsed: 0, mem: 0, memUsed: 0, cordonedBusy: 0 };
  for (const n of nodes) {
    const t = by[n.instanceType] ||= { nodes: 0, healthy: 0, gpus: 0, gpusUsed: 0, vcpu: 0, vcpuUsed: 0, mem: 0, memUsed: 0, cordonedBusy: 0 };
    const used = { g: n.gpus - n.freeGPUs, c: n.vcpu - n.freeVCPU, m: n.memGiB - n.freeMemGiB };
    const busy = used.g > 0 || used.c > 0 || used.m > 0;
    for (const x of [t, all]) {
      x.nodes++; if (n.healthy) x.healthy++;
      if (n.schedulable || busy) { x.gpus += n.gpus; x.vcpu += n.vcpu; x.mem += n.memGiB; }
      x.gpusUsed += used.g; x.vcpuUsed += used.c; x.memUsed += used.m;
      if (!n.schedulable && busy) x.cordonedBusy++;
    }
  }
  return { by, all };
}

async function render(ctx) {
  const view = saved('cluster', { window: '1h', resource: 'gpus' });
  const [{ nodes }, topo, tr, dev, { usage }, queue] = await Promise.all([api('/api/v1/nodes'), api('/api/v1/topology?format=text'),
    api('/api/v1/trends?window=' + view.window), api('/api/v1/devices'), api('/api/v1/usage'),
    api('/api/v1/queue?summary=1').catch(e => { if (e instanceof OutageError) throw e; return { error: e.message }; })]);
  trend = { ...tr, view };
  const { by, all } = totals(nodes || []);
  const pct = (u, t) => t ? Math.round(100 * u / t) + '%' : '-';
  const [rname] = resources[view.resource];
  return `<h1>Cluster</h1>
  <section class="kpis" aria-label="Capacity now">
    <div class="kpi">GPUs <b id="kpi-gpus-total">${num(all.gpus)}</b></div>
    <div class="kpi">GPUs allocated <b id="kpi-gpus-allocated">${num(all.gpusUsed)}</b> <span class="muted">${pct(all.gpusUsed, all.gpus)}</span></div>
    <div class="kpi">vCPU allocated <b id="kpi-vcpu">${num(all.vcpuUsed)} / ${num(all.vcpu)}</b></div>
    <div class="kpi">memory allocated <b id="kpi-mem">${num(all.memUsed)} / ${num(all.mem)} GiB</b></div>
    <div class="kpi">nodes healthy <b id="kpi-nodes">${all.healthy}/${all.nodes}</b></div>
  </section>
  ${all.cordonedBusy ? `<p class="muted small" id="cordoned-note">${all.cordonedBusy} cordoned or unhealthy node(s) still run tasks; their capacity is counted until they drain.</p>` : ''}
  <div class="card"><h2>Instance groups</h2><div class="scroll"><table id="groups-table"><thead><tr><th scope="col">Instance type</th><th scope="col" class="num">Nodes (healthy)</th>
    <th scope="col" class="num">GPUs allocated / total</th><th scope="col" class="num">vCPU allocated / total</th><th scope="col" class="num">Memory GiB allocated / total</th></tr></thead><tbody>
    ${Object.entries(by).sort().map(([k, t]) => `<tr data-key="${esc(k)}" data-type="${esc(k)}"><th scope="row">${esc(k)}</th><td class="num">${t.nodes} (${t.healthy})</td><td class="num gpus">${num(t.gpusUsed)} / ${num(t.gpus)}</td>
      <td class="num">${num(t.vcpuUsed)} / ${num(t.vcpu)}</td><td class="num">${num(t.memUsed)} / ${num(t.mem)}</td></tr>`).join('')}</tbody></table></div>
    ${bars('groups-chart', 'GPUs by instance group', ['allocated', 'free'], Object.entries(by).sort().map(([k, t]) => ({ label: k, values: [t.gpusUsed, Math.max(0, t.gpus - t.gpusUsed)] })))}</div>
  ${waitingCard(queue, nodes || [])}
  <div class="card"><h2>Allocation over time</h2>
    <div class="row"><label for="trend-window">Window</label><select id="trend-window" data-change="window">${options(Object.keys(windows), view.window)}</select>
    <label for="trend-resource">Resource</label><select id="trend-resource" data-change="resource">${options(Object.entries(resources).map(([k, v]) => [k, v[0]]), view.resource)}</select></div>
    <p class="muted small">Share of each instance group's ${esc(rname)} allocated to tasks${tr.resolutionSeconds >= 3600 ? ', hourly means' : ', per sample'}. This is allocation, not measured use.</p>
    ${(tr.samples || []).length ? '' : `<p class="empty" id="trend-empty">No samples in the last ${esc(view.window)} yet: the server samples every minute.</p>`}
    <div id="trend-chart" class="plot" data-keep></div></div>
  ${utilCard(dev, usage || [], nodes || [])}
  <div class="card"><h2>Nodes</h2><div class="scroll"><table id="nodes-table"><thead><tr><th scope="col">Node</th><th scope="col">Instance type</th><th scope="col">Health</th>
    <th scope="col" class="num">GPUs free</th><th scope="col" class="num">vCPU free</th><th scope="col" class="num">Memory free (GiB)</th><th scope="col">Network layer 3</th></tr></thead><tbody>
  ${(nodes || []).map(n => `<tr data-key="${esc(n.name)}"><td>${esc(n.name)}</td><td>${esc(n.instanceType)}</td><td>${!n.healthy ? '✕ unhealthy' : n.cordoned ? '⊘ cordoned' : n.heldFor ? '◷ held for ' + esc(n.heldFor) : '✓ ready'}</td>
  <td class="num">${n.freeGPUs}/${n.gpus}</td><td class="num">${num(n.freeVCPU)}/${num(n.vcpu)}</td><td class="num">${num(n.freeMemGiB)}/${num(n.memGiB)}</td><td>${esc((n.labels || {})['topology.k8s.aws/network-node-layer-3'] || '-')}</td></tr>`).join('')}</tbody></table></div></div>
  <div class="card"><h2>Topology</h2><pre id="topology" tabindex="0">${esc(topo)}</pre></div>`;
}

function after() {
  const host = document.getElementById('trend-chart');
  if (!host || !trend || !(trend.samples || []).length) { if (host) host.textContent = ''; return; }
  const [, cap, used] = resources[trend.view.resource];
  const byType = {};
  for (const s of trend.samples) (byType[s.instanceType] ||= []).push([new Date(s.at).getTime(), s[cap] ? 100 * s[used] / s[cap] : 0]);
  const to = Date.now();
  timeChart(host, { series: Object.entries(byType).sort().map(([label, points]) => ({ label, points })), from: to - windows[trend.view.window], to, yMax: 100, unit: '%', yLabel: 'allocated' });
}

const actions = {
  window(el, ev, ctx) { save('cluster', { ...saved('cluster', { resource: 'gpus' }), window: el.value }); ctx.rerender(); },
  resource(el, ev, ctx) { save('cluster', { ...saved('cluster', { window: '1h' }), resource: el.value }); ctx.rerender(); },
};

export default { title: () => 'Cluster', render, after, actions };
