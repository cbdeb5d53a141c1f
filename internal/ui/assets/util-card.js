// Measured GPU utilisation against allocation, per team and per instance
// group (as HyperPod's "GPU utilisation versus compute allocation"). The
// measurements come from /api/v1/devices: nvidia-smi on the server's host,
// or on Kubernetes the DCGM exporter's DCGM_FI_DEV_GPU_UTIL through the
// Prometheus the admin configured. Without either, the card says so and
// the figures elsewhere are allocation only.
import { esc, num } from './util.js';
import { bars } from './charts.js';

function groupBy(tasks, key) {
  const acc = {};
  for (const t of tasks) {
    if (t.meanUtilPercent < 0) continue;
    const a = acc[t[key]] ||= { gpus: 0, busy: 0 };
    a.gpus += t.gpus.length;
    a.busy += t.gpus.length * t.meanUtilPercent / 100;
  }
  return acc;
}

export function utilCard(dev, usage, nodes) {
  if (!dev.available) {
    return `<div class="card"><h2>Measured GPU utilisation</h2><p class="muted" id="devices-unavailable">${esc(dev.reason)}. The figures on this page are allocation, not measured use.</p></div>`;
  }
  const typeOf = Object.fromEntries(nodes.map(n => [n.name, n.instanceType]));
  const tasks = (dev.tasks || []).map(t => ({ ...t, instanceType: t.instanceType || typeOf[t.node] || '' }));
  const byTeam = groupBy(tasks, 'team'), byType = groupBy(tasks, 'instanceType');
  const alloc = {};
  for (const u of usage) alloc[u.team] = (alloc[u.team] || 0) + u.usedGPUs;
  const table = (id, title, acc, allocOf) => `<h3>${title}</h3><div class="scroll"><table id="${id}"><thead><tr><th scope="col">${title.split(' ').pop()}</th>
    <th scope="col" class="num">GPUs allocated</th><th scope="col" class="num">GPUs measured</th><th scope="col" class="num">mean utilisation</th><th scope="col" class="num">busy GPU-equivalents</th></tr></thead><tbody>
    ${Object.entries(acc).sort().map(([k, a]) => `<tr data-key="${esc(k)}"><th scope="row">${esc(k || '-')}</th><td class="num">${num(allocOf(k, a))}</td><td class="num">${a.gpus}</td>
      <td class="num">${Math.round(100 * a.busy / a.gpus)}%</td><td class="num">${a.busy.toFixed(1)}</td></tr>`).join('')}</tbody></table></div>`;
  const perGPU = (dev.gpus || []).map(g => ({ label: (g.node ? g.node + ' ' : '') + 'GPU ' + g.index, values: [g.utilPercent, 100 - g.utilPercent] }));
  return `<div class="card" id="devices"><h2>Measured GPU utilisation versus allocation</h2>
    <p class="muted small">Source: ${esc(dev.source || 'nvidia-smi')}, sampled ${new Date(dev.sampledAt).toLocaleTimeString()}.</p>
    ${Object.keys(byTeam).length ? table('util-teams', 'Per team', byTeam, k => alloc[k] ?? 0) + table('util-types', 'Per instance group', byType, (k, a) => a.gpus) : '<p class="empty">No running task has measured GPUs.</p>'}
    ${perGPU.length && perGPU.length <= 64 ? bars('devices-chart', 'Per GPU', ['busy %', 'idle %'], perGPU, '%') : ''}</div>`;
}
