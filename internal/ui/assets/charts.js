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

// lines renders time series {name, points: [[t(ms), y]]} with y from 0 to yMax.
export function lines(title, series, yMax, unit) {
  const w = 640, h = 200, left = 44, top = 40, bottom = 24;
  const all = series.flatMap(s => s.points);
  const t0 = Math.min(...all.map(p => p[0])), t1 = Math.max(...all.map(p => p[0]), t0 + 1);
  let out = `<svg class="chart trend" width="${w}" height="${h + 20 * series.length}" role="img" aria-label="${title}">`;
  out += `<text x="0" y="16" font-weight="bold">${title}</text>`;
  out += `<line x1="${left}" y1="${h - bottom}" x2="${w - 10}" y2="${h - bottom}" stroke="#333"/><line x1="${left}" y1="${top}" x2="${left}" y2="${h - bottom}" stroke="#333"/>`;
  for (let i = 0; i <= 4; i++) {
    const y = h - bottom - i / 4 * (h - bottom - top);
    out += `<text x="0" y="${y + 4}" font-size="10">${Math.round(yMax * i / 4)}${unit}</text>`;
  }
  out += `<text x="${left}" y="${h - 6}" font-size="10">${new Date(t0).toLocaleString()}</text><text x="${w - 150}" y="${h - 6}" font-size="10">${new Date(t1).toLocaleString()}</text>`;
  series.forEach((s, i) => {
    const pts = s.points.map(p => `${(left + (p[0] - t0) / (t1 - t0) * (w - 10 - left)).toFixed(1)},${(h - bottom - p[1] / yMax * (h - bottom - top)).toFixed(1)}`).join(' ');
    out += `<polyline fill="none" stroke="${colors[i % colors.length]}" stroke-width="1.5" points="${pts}"/>`;
    out += `<rect x="0" y="${h + 4 + 20 * i}" width="10" height="10" fill="${colors[i % colors.length]}"/><text x="14" y="${h + 13 + 20 * i}" font-size="11">${s.name}</text>`;
  });
  return out + '</svg>';
}
