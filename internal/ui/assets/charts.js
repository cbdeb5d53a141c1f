// Small SVG charts, no library.
const colors = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b'];

// bars renders grouped horizontal bars: rows of {label, values[]} with series names.
export function bars(title, series, rows) {
  const max = Math.max(1, ...rows.flatMap(r => r.values));
  const rowH = 14 * series.length + 10, w = 640, left = 180;
  let y = 48, out = `<svg class="chart" width="${w}" height="${56 + rows.length * rowH}" role="img" aria-label="${title}">`;
  out += `<text x="0" y="16" font-weight="bold">${title}</text>`;
  series.forEach((s, i) => { out += `<rect x="${i * 110}" y="26" width="10" height="10" fill="${colors[i]}"/><text x="${i * 110 + 14}" y="35" font-size="11">${s}</text>`; });
  for (const r of rows) {
    out += `<text x="0" y="${y + 10}" font-size="12">${r.label}</text>`;
    r.values.forEach((v, i) => {
      const bw = (w - left - 60) * v / max;
      out += `<rect x="${left}" y="${y + i * 14}" width="${bw}" height="12" fill="${colors[i]}"/><text x="${left + bw + 4}" y="${y + i * 14 + 10}" font-size="11">${v}</text>`;
    });
    y += rowH;
  }
  return out + '</svg>';
}
