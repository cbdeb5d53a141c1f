// Charts. Time series use the vendored uPlot (vendor/uplot, see
// scripts/vendor-ui.sh): a real time axis over the whole window asked for,
// units on the value axis, a legend, and the host's width (redrawn when it
// changes). Series differ by dash pattern and line width as well as colour,
// so they are told apart without colour and a series under another still
// shows. Bar charts are SVG drawn here, with fill patterns for the same
// reason.
const colors = ['#1f6fb4', '#c45a00', '#2a7d2a', '#b0282b', '#6f4ea0', '#7a5230'];
const dashes = [[], [8, 4], [2, 3], [12, 3, 3, 3], [4, 4], [1, 5]];
const widths = [4, 3, 2.5, 2, 2, 2];
export const marks = ['━', '╍', '┈', '─ ·', '- -', '·'];

const live = new Map(); // host id -> {plot, key, observer}

// timeChart draws or updates, in host (an element marked data-keep), series
// [{label, points: [[ms, y]]}] over [from, to] (ms), y from 0 to yMax.
export function timeChart(host, { series, from, to, yMax, unit, yLabel }) {
  const xs = [...new Set(series.flatMap(s => s.points.map(p => p[0] / 1000)))].sort((a, b) => a - b);
  const data = [xs, ...series.map(s => {
    const m = new Map(s.points.map(p => [p[0] / 1000, p[1]]));
    return xs.map(x => m.has(x) ? m.get(x) : null);
  })];
  const key = series.map(s => s.label).join('|') + '|' + unit;
  const width = Math.max(300, host.clientWidth || 600);
  let c = live.get(host.id);
  if (c && c.key === key && c.host === host && document.body.contains(c.plot.root)) {
    c.range = [from / 1000, to / 1000];
    c.plot.setData(data, false);
    c.plot.setScale('x', { min: from / 1000, max: to / 1000 });
    return;
  }
  if (c) { c.plot.destroy(); c.observer.disconnect(); }
  host.textContent = '';
  c = { key, host, range: [from / 1000, to / 1000] };
  const opts = {
    width, height: 240,
    scales: { x: { time: true, range: () => c.range }, y: { range: [0, yMax] } },
    axes: [
      { label: 'time (local)', stroke: '#333', grid: { stroke: '#e3e3e3' } },
      { label: yLabel, stroke: '#333', grid: { stroke: '#e3e3e3' }, values: (u, vals) => vals.map(v => v + unit), size: 60 },
    ],
    series: [{ label: 'time' }, ...series.map((s, i) => ({
      label: marks[i % marks.length] + ' ' + s.label, stroke: colors[i % colors.length], width: widths[i % widths.length],
      dash: dashes[i % dashes.length], points: { show: s.points.length < 60, size: 6 }, spanGaps: false,
      value: (u, v) => v == null ? '-' : v.toFixed(1) + unit,
    }))],
    legend: { live: true },
  };
  c.plot = new uPlot(opts, data, host);
  c.observer = new ResizeObserver(() => {
    const w = Math.max(300, host.clientWidth);
    if (Math.abs(w - c.plot.width) > 4) c.plot.setSize({ width: w, height: 240 });
  });
  c.observer.observe(host);
  live.set(host.id, c);
}

const esc = s => String(s ?? '').replace(/[&<>"]/g, ch => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[ch]));

// patternDefs are the fills of bar series: solid, hatched, dotted, crossed.
function patternDefs(id) {
  const p = (i, body) => `<pattern id="${id}-p${i}" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#fff"/>${body}</pattern>`;
  return `<defs>${p(0, `<rect width="6" height="6" fill="${colors[0]}"/>`)}
    ${p(1, `<path d="M0,6 L6,0 M-1,1 L1,-1 M5,7 L7,5" stroke="${colors[1]}" stroke-width="2"/>`)}
    ${p(2, `<circle cx="3" cy="3" r="1.6" fill="${colors[2]}"/>`)}
    ${p(3, `<path d="M0,0 L6,6 M6,0 L0,6" stroke="${colors[3]}" stroke-width="1.3"/>`)}</defs>`;
}

// bars renders grouped horizontal bars: rows of {label, values[]}, one value
// per series name; the SVG scales to its container's width.
export function bars(id, title, series, rows, unit = '') {
  const max = Math.max(1, ...rows.flatMap(r => r.values));
  const rowH = 16 * series.length + 12, w = 760, left = 230, right = 70;
  const h = 50 + rows.length * rowH;
  let out = `<svg id="${id}" class="chart bars" viewBox="0 0 ${w} ${h}" preserveAspectRatio="xMinYMin meet" role="img" aria-label="${esc(title)}">${patternDefs(id)}`;
  out += `<text x="0" y="16" font-weight="bold">${esc(title)}</text>`;
  series.forEach((s, i) => {
    out += `<rect x="${i * 130}" y="26" width="14" height="14" fill="url(#${id}-p${i})" stroke="#333"/><text x="${i * 130 + 19}" y="37" font-size="13">${esc(s)}</text>`;
  });
  let y = 52;
  for (const r of rows) {
    out += `<text x="0" y="${y + 12}" font-size="13">${esc(r.label)}</text>`;
    r.values.forEach((v, i) => {
      const bw = Math.max(0, (w - left - right) * v / max);
      out += `<rect x="${left}" y="${y + i * 16}" width="${bw.toFixed(1)}" height="14" fill="url(#${id}-p${i})" stroke="#333" stroke-width="0.6"><title>${esc(r.label)} ${esc(series[i])}: ${v}${unit}</title></rect>`;
      out += `<text x="${(left + bw + 4).toFixed(1)}" y="${y + i * 16 + 12}" font-size="12">${+v.toFixed(1)}${unit}</text>`;
    });
    y += rowH;
  }
  return out + '</svg>';
}
