// Usage: GPU-, borrowed GPU- and vCPU-hours and cost over a chosen date
// range (UTC days), as a summary per day, team and type or per task run;
// CSV export of what is shown.
import { api } from './api.js';
import { esc, options, saved, save, when } from './util.js';

const columns = {
  summary: [['date', 'date'], ['team', 'team'], ['instance_type', 'instanceType'], ['gpu_hours', 'gpuHours'], ['borrowed_gpu_hours', 'borrowedGpuHours'], ['vcpu_hours', 'vcpuHours'], ['cost', 'cost']],
  detailed: [['task', 'task'], ['team', 'team'], ['instance_type', 'instanceType'], ['priority', 'priority'], ['start', 'start'], ['end', 'end'], ['status', 'status'],
    ['gpu_hours', 'gpuHours'], ['borrowed_gpu_hours', 'borrowedGpuHours'], ['vcpu_hours', 'vcpuHours'], ['cost', 'cost']],
};
const day = d => d.toISOString().slice(0, 10);
const shift = (s, days) => day(new Date(Date.parse(s + 'T00:00:00Z') + days * 86400e3));
function defaults() { const today = day(new Date()); return { view: 'summary', from: shift(today, -6), to: today }; }
let shown = null; // {cols, rows} for the CSV

// cellValue is a row's value as shown and exported: a running run has no
// end yet.
const cellValue = (r, k) => (k === 'end' && r.status === 'running') ? '' : r[k];

function cell(k, v) {
  if (typeof v === 'number') return `<td class="num">${k === 'cost' ? v.toFixed(2) : v.toFixed(3)}</td>`;
  if (k === 'start' || k === 'end') return `<td class="nowrap">${v ? when(v) : '-'}</td>`;
  if (k === 'status' && v === 'running') return '<td>▶ running</td>';
  return `<td>${esc(v || '-')}</td>`;
}

async function render() {
  const f = saved('usage', defaults());
  if (f.to < f.from) f.to = f.from;
  const rep = await api(`/api/v1/usage/report?from=${f.from}&to=${shift(f.to, 1)}&type=${f.view}`);
  const rows = (f.view === 'detailed' ? rep.detailed : rep.summary) || [];
  const cols = columns[f.view];
  shown = { cols, rows };
  const missing = rep.header.missingPeriods || [];
  return `<h1>Usage</h1>
  <form class="card filters" data-submit="noop">
    <label for="usage-from">From (UTC day)</label><input id="usage-from" type="date" value="${f.from}" max="${f.to}" data-change="range">
    <label for="usage-to">To (UTC day, included)</label><input id="usage-to" type="date" value="${f.to}" min="${f.from}" data-change="range">
    <span class="presets">${[[1, 'today'], [7, '7 days'], [30, '30 days']].map(([n, l]) => `<button type="button" class="ghost" data-action="preset" data-days="${n}">${l}</button>`).join('')}</span>
    <label for="usage-view">View</label><select id="usage-view" data-change="range">${options([['summary', 'summary per day, team and type'], ['detailed', 'detailed per task run']], f.view)}</select>
    <button type="button" data-action="csv" id="usage-csv">Export CSV</button>
  </form>
  <div class="card"><p id="usage-header">${esc(rep.header.cluster)} · ${esc(rep.header.type)} · ${f.from} to ${f.to} (UTC) · periods with no server running: ${missing.length}</p>
  ${rows.length ? '' : '<p class="empty" id="usage-empty">No usage in this range.</p>'}
  <div class="scroll"><table id="usage-table" data-view="${f.view}"><thead><tr>${cols.map(([h, k]) => `<th scope="col"${typeof rows[0]?.[k] === 'number' ? ' class="num"' : ''}>${h.replace(/_/g, ' ')}</th>`).join('')}</tr></thead>
  <tbody>${rows.map(r => `<tr>${cols.map(([, k]) => cell(k, cellValue(r, k))).join('')}</tr>`).join('')}</tbody></table></div></div>`;
}

const actions = {
  noop() {},
  range(el, ev, ctx) {
    save('usage', { from: document.getElementById('usage-from').value || defaults().from, to: document.getElementById('usage-to').value || defaults().to, view: document.getElementById('usage-view').value });
    ctx.rerender();
  },
  preset(el, ev, ctx) {
    const to = day(new Date());
    save('usage', { ...saved('usage', defaults()), from: shift(to, 1 - +el.dataset.days), to });
    ctx.rerender();
  },
  csv() {
    const { cols, rows } = shown;
    const quote = v => /[",\n]/.test(String(v ?? '')) ? '"' + String(v).replace(/"/g, '""') + '"' : String(v ?? '');
    const head = cols.map(([h]) => h).join(',') + '\n';
    const body = rows.map(r => cols.map(([, k]) => quote(cellValue(r, k))).join(',')).join('\n');
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([head + body + '\n'], { type: 'text/csv' }));
    a.download = 'taskgov-usage.csv'; a.click();
  },
};

export default { title: () => 'Usage', render, actions };
