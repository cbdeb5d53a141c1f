// previewHTML shows what a policy or team change would do now, from
// POST /api/v1/preview.
import { esc } from './util.js';

export function previewHTML(r, countId) {
  const pre = r.preemptions || [], adm = r.admissions || [];
  return `<h4>If saved now</h4><p id="${countId}">${pre.length} preemption(s), ${adm.length} admission(s)</p>
    ${pre.length + adm.length ? `<ul class="preview">${pre.map(p => `<li>preempt ${esc(p.task)} (${esc(p.team)}): ${esc(p.reason)}${p.for ? ' for ' + esc(p.for) : ''}</li>`).join('')}
    ${adm.map(a => `<li>admit ${esc(a.task)} (${esc(a.team)})</li>`).join('')}</ul>` : '<p class="muted">Nothing would be started or stopped.</p>'}`;
}
