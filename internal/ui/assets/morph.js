// morph updates a live DOM subtree to match new HTML in place, so that a
// refresh keeps keyboard focus, text selections, scroll positions and what
// the user typed. Nodes are matched by position, and elements also by tag,
// id and data-key; only what differs is touched. The focused form control
// keeps its live value; an element marked data-keep keeps its children
// (charts and open editors own theirs).
export function morph(target, html) {
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  patchChildren(target, tpl.content);
}

function sameKind(a, b) {
  if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) return false;
  if (a.nodeType !== Node.ELEMENT_NODE) return true;
  return a.id === b.id && a.getAttribute('data-key') === b.getAttribute('data-key');
}

function patchChildren(live, next) {
  const have = [...live.childNodes], want = [...next.childNodes];
  want.forEach((w, i) => {
    const h = have[i];
    if (!h) live.appendChild(w);
    else if (!sameKind(h, w)) live.replaceChild(w, h);
    else patchNode(h, w);
  });
  for (let i = want.length; i < have.length; i++) have[i].remove();
}

function patchNode(live, next) {
  if (live.nodeType !== Node.ELEMENT_NODE) {
    if (live.nodeValue !== next.nodeValue) live.nodeValue = next.nodeValue;
    return;
  }
  for (const { name, value } of next.attributes) {
    if (live.getAttribute(name) !== value) live.setAttribute(name, value);
  }
  for (const { name } of [...live.attributes]) {
    if (!next.hasAttribute(name)) live.removeAttribute(name);
  }
  if (live.hasAttribute('data-keep')) return;
  const want = wantedValue(next);
  patchChildren(live, next);
  if (want !== null && live !== document.activeElement) {
    if (typeof want === 'boolean') live.checked = want;
    else if (live.value !== want) live.value = want;
  }
}

// wantedValue is the value new HTML gives a form control (read before its
// options move into the live select), or null for other elements. A control
// without focus is then set to it (a cleared filter clears its box); the
// control being edited keeps what the user typed.
function wantedValue(next) {
  if (next.tagName === 'SELECT') {
    const sel = next.querySelector('option[selected]') || next.querySelector('option');
    return sel ? (sel.getAttribute('value') ?? sel.textContent) : '';
  }
  if (next.tagName === 'INPUT') {
    return next.type === 'checkbox' || next.type === 'radio' ? next.hasAttribute('checked') : (next.getAttribute('value') ?? '');
  }
  return null;
}
