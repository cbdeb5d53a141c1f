// The dashboard shell: log-in, who is logged in, hash routes, the outage
// banner, and the refresh loop. Each page module renders HTML from the API;
// refreshes morph it into the live page (morph.js), so focus, selections
// and typed text survive. Pages handle events by delegation: an element
// with data-action="x" calls the page's actions.x(element, event) on click,
// data-change and data-input likewise on change and input.
import { api, token, setToken, health, OutageError } from './api.js';
import { morph } from './morph.js';
import { esc } from './util.js';
import cluster from './page-cluster.js';
import teams from './page-teams.js';
import tasks from './page-tasks.js';
import task from './page-task.js';
import policies from './page-policies.js';
import usage from './page-usage.js';

const pages = { cluster, teams, tasks, task, policies, usage };
const main = document.getElementById('main');
const loginForm = document.getElementById('login-template').innerHTML;
const banner = document.getElementById('banner');
const REFRESH_MS = 2000;
let timer = null, seq = 0, current = null, me = null, lastGood = null;

const ctx = {
  get me() { return me; },
  admin: () => me?.role === 'admin',
  canWrite: team => me?.role === 'admin' || (me?.role === 'member' && me.team === team),
  rerender: () => render(),
};

function route() {
  const [name, ...rest] = (location.hash.slice(1) || 'cluster').split('/');
  return { name, arg: decodeURIComponent(rest.join('/')) };
}

async function render() {
  clearTimeout(timer);
  const mine = ++seq; // a render still awaiting the API is dropped, even one started before a logout
  if (!token()) { showLogin(); return; }
  const { name, arg } = route();
  const page = pages[name];
  document.querySelectorAll('#nav a').forEach(a => {
    const on = a.hash === '#' + name || (name === 'task' && a.hash === '#tasks');
    a.classList.toggle('active', on);
    if (on) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  });
  if (!page) {
    current = null;
    main.dataset.page = 'notfound';
    main.innerHTML = `<h1>Page not found</h1><p id="not-found">There is no page “${esc(name)}”. Go to <a href="#cluster">Cluster</a>, <a href="#teams">Teams</a>, <a href="#tasks">Tasks</a>, <a href="#policies">Policies</a> or <a href="#usage">Usage</a>.</p>`;
    document.title = 'Not found · taskgov';
    return;
  }
  try {
    if (!me) await loadMe();
    const html = await page.render(ctx, arg);
    if (mine !== seq) return; // a newer render started
    if (current !== page || main.dataset.page !== name || main.dataset.arg !== arg) {
      main.innerHTML = html; // a new page: no state to keep
      main.dataset.page = name;
      main.dataset.arg = arg;
      current = page;
    } else {
      morph(main, html);
    }
    document.title = (page.title ? page.title(arg) : name) + ' · taskgov';
    await page.after?.(main, ctx, arg);
    lastGood = new Date();
    performance.mark('taskgov-rendered', { detail: name }); // the browser test times first renders
  } catch (e) {
    if (mine !== seq) return;
    if (e.status === 401) { setToken(''); me = null; showLogin(e.message); return; }
    if (!(e instanceof OutageError)) {
      const box = document.getElementById('page-error') || main.insertBefore(Object.assign(document.createElement('p'), { id: 'page-error', className: 'error', role: 'alert' }), main.firstChild);
      box.textContent = e.message;
    }
  }
  if (page.refresh !== false) timer = setTimeout(render, REFRESH_MS);
}

async function loadMe() {
  me = await api('/api/v1/whoami');
  document.getElementById('whoami').innerHTML = `Logged in as <b id="me-name">${esc(me.name)}</b> · <span id="me-role">${esc(me.role)}</span>${me.team ? ` of <span id="me-team">${esc(me.team)}</span>` : ' · all teams'}`;
  document.body.dataset.role = me.role;
}

health.listeners.add(down => {
  if (down) {
    banner.hidden = false;
    banner.className = 'banner down';
    banner.textContent = `The server cannot be reached (since ${down.toLocaleTimeString()}). Retrying every ${REFRESH_MS / 1000} s; the figures below are from ${(lastGood || down).toLocaleTimeString()}.`;
    if (!timer) timer = setTimeout(render, REFRESH_MS);
  } else {
    banner.className = 'banner up';
    banner.textContent = 'Connected to the server again.';
    setTimeout(() => { if (!health.down) banner.hidden = true; }, 3000);
  }
});

function delegate(type, attr) {
  main.addEventListener(type, ev => {
    const el = ev.target.closest(`[${attr}]`);
    const fn = el && current?.actions?.[el.getAttribute(attr)];
    if (fn) fn(el, ev, ctx);
  });
}
delegate('click', 'data-action');
delegate('change', 'data-change');
delegate('input', 'data-input');
main.addEventListener('submit', ev => {
  const fn = current?.actions?.[ev.target.getAttribute('data-submit')];
  if (fn) { ev.preventDefault(); fn(ev.target, ev, ctx); }
});
main.addEventListener('toggle', ev => current?.actions?.toggle?.(ev.target, ev, ctx), true);

// showLogin shows the log-in form; one already shown is kept, with what
// was typed in it, and only its message changes.
function showLogin(message) {
  clearTimeout(timer);
  ++seq; // a render awaiting the API must not replace the form
  current = null;
  me = null;
  document.getElementById('nav').hidden = true;
  document.getElementById('whoami').textContent = '';
  delete document.body.dataset.role;
  if (main.dataset.page === 'login' && document.getElementById('login')) {
    if (message) document.getElementById('login-error').textContent = message;
    return;
  }
  main.dataset.page = 'login';
  main.innerHTML = loginForm;
  if (message) document.getElementById('login-error').textContent = message;
  document.getElementById('login').onsubmit = async ev => {
    ev.preventDefault();
    setToken(document.getElementById('token').value.trim());
    try {
      await loadMe();
      document.getElementById('nav').hidden = false;
      if (!location.hash) location.hash = '#cluster';
      render();
    } catch (e) { setToken(''); me = null; document.getElementById('login-error').textContent = e.message; }
  };
}

document.getElementById('logout').onclick = () => { setToken(''); me = null; location.hash = ''; showLogin(); };
window.addEventListener('hashchange', () => { current = null; render(); });
if (token()) document.getElementById('nav').hidden = false;
render();
