// The web view: the cluster list, and for the selected cluster its schedule as a Gantt chart and
// a table, kept live by the cluster's event stream. Reads the JSON API only.
'use strict';

const state = { clusters: [], selected: null, schedule: null, events: null, sortKey: 'start',
  refreshPending: false };

function seconds(timestamp) { return timestamp ? Date.parse(timestamp) / 1000 : 0; }
function setStatus(text) { document.getElementById('status').textContent = text; }

async function getJson(path) {
  const response = await fetch(path, { cache: 'no-store' });
  const body = await response.json();
  if (!response.ok) throw new Error(`${body.code}: ${body.message}`);
  return body;
}

async function loadClusters() {
  const answer = await getJson('/api/v1/clusters');
  state.clusters = answer.clusters || [];
  const body = document.querySelector('#clusters tbody');
  body.replaceChildren();
  for (const cluster of state.clusters) {
    const name = cluster.spec.name;
    const row = document.createElement('tr');
    row.tabIndex = 0;
    row.dataset.cluster = name;
    row.setAttribute('aria-selected', String(name === state.selected));
    for (const value of [name, cluster.capacity, `${((cluster.utilization || 0) * 100).toFixed(1)} %`,
      cluster.queuedJobs || 0, cluster.runningJobs || 0]) {
      const cell = document.createElement('td');
      cell.textContent = value;
      row.append(cell);
    }
    row.addEventListener('click', () => select(name));
    row.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') select(name); });
    body.append(row);
  }
  if (!state.selected && state.clusters.length > 0) {
    // The address's #NAME chooses the cluster (a link to one cluster's view).
    const wanted = decodeURIComponent(location.hash.slice(1));
    const known = state.clusters.some((c) => c.spec.name === wanted);
    select(known ? wanted : state.clusters[0].spec.name);
  }
}

// The window's start: the cluster's now less the past the picker asks for.
function windowStart() {
  const history = document.getElementById('history').value;
  if (history === 'all') return new Date(0).toISOString();
  const cluster = state.clusters.find((c) => c.spec.name === state.selected);
  const now = cluster ? Date.parse(cluster.now) : Date.now();
  return new Date(Math.max(0, now - Number(history) * 1000)).toISOString();
}

async function loadSchedule() {
  if (!state.selected) return;
  const from = encodeURIComponent(windowStart());
  state.schedule = await getJson(
    `/api/v1/clusters/${encodeURIComponent(state.selected)}/schedule?include_finished=true&from=${from}`);
  draw();
  fillJobs();
  document.getElementById('cluster-now').textContent = `now: ${state.schedule.now}`;
}

function select(name) {
  state.selected = name;
  history.replaceState(null, '', `#${encodeURIComponent(name)}`);
  document.getElementById('cluster').hidden = false;
  document.getElementById('cluster-name').textContent = name;
  for (const row of document.querySelectorAll('#clusters tbody tr')) {
    row.setAttribute('aria-selected', String(row.dataset.cluster === name));
  }
  if (state.events) state.events.close();
  state.events = new EventSource(`/api/v1/clusters/${encodeURIComponent(name)}/events`);
  state.events.onmessage = refreshSoon;
  for (const kind of ['SNAPSHOT', 'JOB_CHANGED', 'RESERVATION_ADDED', 'RESERVATION_REMOVED',
    'CLOCK_ADVANCED', 'DAG_RESERVED', 'DAG_RELEASED']) {
    state.events.addEventListener(kind, refreshSoon);
  }
  state.events.addEventListener('end', (e) => setStatus(`live updates ended: ${e.data}`));
  loadSchedule().catch((e) => setStatus(e.message));
}

document.getElementById('history').addEventListener('change', () => {
  loadSchedule().catch((e) => setStatus(e.message));
});

// Many events arrive together (a submission moves several jobs): one refresh per frame.
function refreshSoon() {
  if (state.refreshPending) return;
  state.refreshPending = true;
  requestAnimationFrame(() => {
    state.refreshPending = false;
    loadClusters().then(loadSchedule).then(() => setStatus('live'))
      .catch((e) => setStatus(e.message));
  });
}

// A bar's colour by job state: waiting, running, or over (finished, failed or cancelled).
const KIND_OF_STATE = { QUEUED: 'queued', RUNNING: 'running', FINISHED: 'ended', FAILED: 'ended',
  CANCELLED: 'ended' };

// The bars drawn, in canvas pixels, for hit tests (and the browser tests).
window.reschedBars = [];

function draw() {
  const canvas = document.getElementById('gantt');
  const context = canvas.getContext('2d');
  const schedule = state.schedule;
  const style = getComputedStyle(document.documentElement);
  context.clearRect(0, 0, canvas.width, canvas.height);
  window.reschedBars = [];
  const items = [];
  for (const job of schedule.jobs || []) {
    if (!job.allocation) continue;
    items.push({ id: job.id, kind: KIND_OF_STATE[job.state] || 'queued',
      start: seconds(job.allocation.start), end: seconds(job.allocation.end),
      ids: job.allocation.processorIds || [] });
  }
  for (const reservation of schedule.reservations || []) {
    items.push({ id: reservation.id, kind: 'reserved', start: seconds(reservation.start),
      end: seconds(reservation.end), ids: reservation.processorIds || [] });
  }
  const now = seconds(schedule.now);
  const from = Math.min(now, ...items.map((i) => i.start));
  const to = Math.max(now + 1, ...items.map((i) => i.end));
  const x = (t) => ((t - from) / (to - from)) * canvas.width;
  const chartHeight = canvas.height - AXIS_HEIGHT;
  const rowHeight = chartHeight / Math.max(1, schedule.capacity);
  drawTimeAxis(context, style, from, to, x, chartHeight);
  for (const item of items) {
    context.fillStyle = style.getPropertyValue(`--${item.kind}`);
    for (const p of item.ids) {
      const bar = { id: item.id, kind: item.kind, x: x(item.start), y: p * rowHeight,
        width: Math.max(1, x(item.end) - x(item.start)), height: Math.max(1, rowHeight - 1) };
      if (item.kind === 'reserved') {
        context.globalAlpha = 0.5;
        context.fillRect(bar.x, bar.y, bar.width, bar.height);
        context.globalAlpha = 1;
        for (let h = bar.x - bar.height; h < bar.x + bar.width; h += 6) {
          context.beginPath();
          context.moveTo(Math.max(bar.x, h), bar.y + bar.height - Math.max(0, bar.x - h));
          context.lineTo(Math.min(bar.x + bar.width, h + bar.height),
            bar.y + Math.max(0, h + bar.height - bar.x - bar.width));
          context.strokeStyle = style.getPropertyValue('--fg');
          context.stroke();
        }
      } else {
        context.fillRect(bar.x, bar.y, bar.width, bar.height);
      }
      window.reschedBars.push(bar);
    }
  }
  context.fillStyle = style.getPropertyValue('--now');
  context.fillRect(x(now), 0, 2, chartHeight);
}

const AXIS_HEIGHT = 20;

// Ticks at a round step under the chart, labelled in UTC.
function drawTimeAxis(context, style, from, to, x, top) {
  const steps = [1, 5, 10, 30, 60, 300, 600, 1800, 3600, 7200, 21600, 43200, 86400, 604800];
  const step = steps.find((s) => (to - from) / s <= 8) || steps[steps.length - 1];
  context.fillStyle = style.getPropertyValue('--muted');
  context.font = '12px system-ui, sans-serif';
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) {
    context.fillRect(x(t), top, 1, 4);
    const label = new Date(t * 1000).toISOString().slice(step >= 86400 ? 0 : 11, step >= 86400 ? 10 : 19);
    context.fillText(label, Math.min(x(t) + 2, context.canvas.width - 60), top + 15);
  }
}

function fillJobs() {
  const jobs = (state.schedule.jobs || []).map((job) => ({ id: job.id, state: job.state,
    processors: job.allocation ? job.allocation.processors : 0,
    start: job.allocation ? job.allocation.start : '', end: job.allocation ? job.allocation.end : '' }));
  const key = state.sortKey;
  jobs.sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0));
  const body = document.querySelector('#jobs tbody');
  body.replaceChildren();
  for (const job of jobs) {
    const row = document.createElement('tr');
    for (const value of [job.id, job.state, job.processors, job.start, job.end]) {
      const cell = document.createElement('td');
      cell.textContent = value;
      row.append(cell);
    }
    body.append(row);
  }
}

for (const button of document.querySelectorAll('#jobs th button')) {
  button.addEventListener('click', () => { state.sortKey = button.dataset.sort; fillJobs(); });
}

window.addEventListener('hashchange', () => {
  const wanted = decodeURIComponent(location.hash.slice(1));
  if (wanted && wanted !== state.selected) select(wanted);
});

loadClusters().then(() => setStatus('loaded')).catch((e) => setStatus(e.message));
