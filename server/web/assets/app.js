// The web view: the cluster list, and for the selected cluster its schedule as a Gantt chart and
// a table, kept live by the cluster's event stream (live.js). Reads the JSON API only
// (docs/web.md).
'use strict';

const state = {
  clusters: [],
  selected: null,
  sortKey: 'start',
  sortDescending: false,
  tablePage: 0, // which page of TABLE_PAGE_ROWS jobs the table shows
  tableFind: '', // shows only jobs whose id or state contains it (any case)
  view: null, // the time window shown, {from, to} in seconds; null: fit the schedule
  detail: null, // the item whose details are shown
  hovered: null, // the DAG task under the pointer, whose edges are drawn
  items: [],
  itemsVersion: -1, // live.version the items were built from
  whatIf: [], // a dry run's placements, drawn over the schedule
  whatIfVersion: -1, // live.version the dry run was asked on
  drawPending: false,
  tablePending: null,
  tableFilledAt: -Infinity, // performance.now() of the last filling
  clustersLoading: false,
};

// A bar's colour by job state: waiting, running, or over (finished, failed or cancelled).
const KIND_OF_STATE = {
  QUEUED: 'queued', RUNNING: 'running', FINISHED: 'ended', FAILED: 'ended', CANCELLED: 'ended',
};
const AXIS_HEIGHT = 20;
// A table of every job of a large cluster would cost more to build at each update than the
// chart: it shows a page of them at a time, rebuilt at most every TABLE_REFRESH_MS.
const TABLE_PAGE_ROWS = 500;
const TABLE_REFRESH_MS = 500;
// The cluster list (utilization, counts) is read again this often; the selected cluster's
// schedule comes through its event stream.
const CLUSTERS_REFRESH_MS = 5000;

function seconds(timestamp) { return timestamp ? Date.parse(timestamp) / 1000 : 0; }
function durationSeconds(text) { return text ? Number(String(text).replace(/s$/, '')) : 0; }
function setStatus(text, liveState) {
  const status = document.getElementById('status');
  status.textContent = text;
  status.dataset.state = liveState || '';
  document.body.dataset.live = liveState || '';
}

function cell(row, value) {
  const td = document.createElement('td');
  td.textContent = value;
  row.append(td);
}

function clusterCells(cluster) {
  return [cluster.spec.name, cluster.capacity,
    `${((cluster.utilization || 0) * 100).toFixed(1)} %`, cluster.queuedJobs || 0,
    cluster.runningJobs || 0];
}

async function loadClusters() {
  if (state.clustersLoading) return;
  state.clustersLoading = true;
  let answer;
  try {
    answer = await getJson('/api/v1/clusters');
  } finally {
    state.clustersLoading = false;
  }
  const before = state.clusters.map((c) => c.spec.name).join('\n');
  state.clusters = answer.clusters || [];
  const body = document.querySelector('#clusters tbody');
  if (before === state.clusters.map((c) => c.spec.name).join('\n') && body.rows.length > 0) {
    // The same clusters: the cells change in place, so that a row keeps the keyboard focus.
    state.clusters.forEach((cluster, i) => {
      clusterCells(cluster).forEach((value, j) => {
        body.rows[i].cells[j].textContent = value;
      });
    });
  } else {
    body.replaceChildren();
    for (const cluster of state.clusters) {
      const name = cluster.spec.name;
      const row = document.createElement('tr');
      row.tabIndex = 0;
      row.dataset.cluster = name;
      row.setAttribute('aria-selected', String(name === state.selected));
      for (const value of clusterCells(cluster)) cell(row, value);
      row.addEventListener('click', () => select(name));
      row.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') select(name);
      });
      body.append(row);
    }
  }
  const shown = state.clusters.find((c) => c.spec.name === state.selected);
  if (shown) live.clusterInfo = shown;
  if (!state.selected && state.clusters.length > 0) {
    // The address's #NAME chooses the cluster (a link to one cluster's view).
    const wanted = decodeURIComponent(location.hash.slice(1));
    select(wanted || state.clusters[0].spec.name);
  }
}

// The past the picker keeps: the cluster's now less its choice; null for none.
function pastFrom() {
  const history = document.getElementById('history').value;
  if (history === 'all') return new Date(0).toISOString();
  if (history === '0') return null;
  const cluster = state.clusters.find((c) => c.spec.name === state.selected);
  const now = cluster ? Date.parse(cluster.now) : Date.now();
  return new Date(Math.max(0, now - Number(history) * 1000)).toISOString();
}

function select(name) {
  state.selected = name;
  state.view = null;
  state.tablePage = 0;
  state.whatIf = [];
  document.getElementById('what-if-result').textContent = '';
  state.detail = null;
  showDetail(null);
  history.replaceState(null, '', `#${encodeURIComponent(name)}`);
  document.getElementById('cluster').hidden = false;
  document.getElementById('cluster-name').textContent = name;
  for (const row of document.querySelectorAll('#clusters tbody tr')) {
    row.setAttribute('aria-selected', String(row.dataset.cluster === name));
  }
  const info = state.clusters.find((c) => c.spec.name === name);
  if (!info) {
    // A link to a cluster that is not there: its name over nothing, said so.
    liveClose();
    live.meta = null;
    state.itemsVersion = -1;
    setStatus(`no cluster named '${name}'`, 'missing');
    redrawSoon();
    return;
  }
  liveOpen(name, info, pastFrom());
}

live.onChange = () => redrawSoon();
live.onState = (liveState, text) => {
  setStatus(text, liveState);
  // A deleted cluster: its chart goes, and the list loses it.
  if (liveState === 'gone') {
    live.meta = null;
    redrawSoon();
    loadClusters().catch(() => {});
  }
};

// Many events arrive together (a submission moves several jobs): one drawing per frame, and
// the table at most every TABLE_REFRESH_MS.
function redrawSoon() {
  if (state.drawPending) return;
  state.drawPending = true;
  requestAnimationFrame(() => {
    state.drawPending = false;
    const figure = document.getElementById('gantt').closest('figure');
    figure.hidden = live.meta === null;
    if (!live.meta) {
      document.querySelector('#jobs tbody').replaceChildren();
      document.getElementById('jobs-shown').textContent = '';
      document.getElementById('cluster-now').textContent = '';
      return;
    }
    if (state.itemsVersion !== live.version) {
      state.items = itemsOf();
      state.itemsVersion = live.version;
      if (state.whatIf.length > 0 && state.whatIfVersion !== live.version) {
        // A dry run answers for the schedule it was asked on: drawn over another, it would lie.
        state.whatIf = [];
        document.getElementById('what-if-result').textContent +=
          ' (No longer drawn: the schedule changed since; ask again.)';
        document.getElementById('what-if-command-line').hidden = true;
      }
      if (state.detail) showDetail(state.items.find((i) => i.id === state.detail.id) || null);
      tableSoon();
    }
    draw();
    const now = new Date(liveNow() * 1000).toISOString();
    document.getElementById('cluster-now').textContent = `now: ${now}`;
  });
}

// At once when the table was last filled long enough ago, else once that time is up.
function tableSoon() {
  if (state.tablePending !== null) return;
  const wait = Math.max(0, state.tableFilledAt + TABLE_REFRESH_MS - performance.now());
  state.tablePending = setTimeout(() => {
    state.tablePending = null;
    state.tableFilledAt = performance.now();
    fillJobs();
  }, wait);
}

// Runs of an item's processor ids, cached on the object an event or a fetch gave.
function runsOnce(holder, ids) {
  if (!holder.runsCache) holder.runsCache = runsOf(ids || []);
  return holder.runsCache;
}

// Jobs, holds and DAG tasks as the chart draws them.
function itemsOf() {
  const items = [];
  for (const [key, job] of live.jobs) {
    const a = job.allocation;
    items.push({ id: key, kind: KIND_OF_STATE[job.state] || 'queued', job, anonymous: !job.id,
      start: seconds(a.start), end: seconds(a.end), ids: a.processorIds || [],
      runs: runsOnce(job, a.processorIds) });
  }
  for (const reservation of live.holds.values()) {
    items.push({ id: reservation.id, kind: 'reserved', reservation,
      start: seconds(reservation.start), end: seconds(reservation.end),
      ids: reservation.processorIds || [], runs: runsOnce(reservation, reservation.processorIds) });
  }
  for (const task of live.dagTasks) {
    items.push({ id: `${task.dagId}/${task.task}`, kind: 'dag', task,
      start: seconds(task.allocation.start), end: seconds(task.allocation.end),
      ids: task.allocation.processorIds || [],
      runs: runsOnce(task, task.allocation.processorIds) });
  }
  return items;
}

// Consecutive processor ids, as [first, count] runs: one bar each, however wide the job.
function runsOf(ids) {
  const sorted = [...ids].sort((a, b) => a - b);
  const runs = [];
  for (const id of sorted) {
    const last = runs[runs.length - 1];
    if (last && last[0] + last[1] === id) last[1] += 1; else runs.push([id, 1]);
  }
  return runs;
}

// A loop, not Math.min(...spread): a spread of some 100k values overflows the call stack.
function fitWindow() {
  const now = liveNow();
  let from = now;
  let to = now + 1;
  for (const item of [...state.items, ...state.whatIf]) {
    from = Math.min(from, item.start);
    to = Math.max(to, item.end);
  }
  return { from, to };
}

// Each DAG's tasks in its own shade of the DAG colour, so that DAGs side by side stay apart.
const dagShades = new Map();
function dagShade(packed, dagId) {
  if (!dagShades.has(dagId)) dagShades.set(dagId, dagShades.size);
  const factor = [1, 0.7, 1.25, 0.85, 1.12, 0.6][dagShades.get(dagId) % 6];
  const channel = (shift) => Math.min(255, Math.round(((packed >>> shift) & 255) * factor));
  return ((255 << 24) | (channel(16) << 16) | (channel(8) << 8) | channel(0)) >>> 0;
}

// CSS colours (the custom properties --NAME) as the 32-bit pixels of an ImageData, resolved by
// the browser's own parser through a 1x1 canvas.
function packedColours(style, names) {
  const probe = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  const packed = {};
  for (const name of names) {
    probe.clearRect(0, 0, 1, 1);
    probe.fillStyle = style.getPropertyValue(`--${name}`);
    probe.fillRect(0, 0, 1, 1);
    packed[name] = new Uint32Array(probe.getImageData(0, 0, 1, 1).data.buffer)[0];
  }
  return packed;
}

// The bars drawn, in canvas pixels, for hit tests (and the browser tests), and the time the
// last drawing took.
window.reschedBars = [];
window.reschedDrawMs = 0;

function draw() {
  const started = performance.now();
  const canvas = document.getElementById('gantt');
  const context = canvas.getContext('2d');
  const capacity = live.meta.capacity;
  const style = getComputedStyle(document.documentElement);
  context.clearRect(0, 0, canvas.width, canvas.height);
  const { from, to } = state.view || fitWindow();
  const x = (t) => ((t - from) / (to - from)) * canvas.width;
  const chartHeight = canvas.height - AXIS_HEIGHT;
  const rowHeight = chartHeight / Math.max(1, capacity);
  const bars = [];
  // The bars are written into the pixels directly, then put on the canvas at once: 10k jobs on
  // 1,024 processors are about 140k runs of processors, each thinner than a pixel, and a canvas
  // call per run took 100 ms per drawing.
  const image = context.createImageData(canvas.width, Math.max(1, Math.floor(chartHeight)));
  const pixels = new Uint32Array(image.data.buffer);
  const colours = packedColours(style, ['queued', 'running', 'ended', 'dag', 'reserved', 'fg']);
  const gap = rowHeight > 3 ? 1 : 0; // rows apart when there is room
  for (const item of state.items) {
    if (item.end <= from || item.start >= to) continue;
    const left = Math.max(0, x(item.start));
    const right = Math.min(canvas.width, x(item.end));
    const x0 = Math.floor(left);
    const x1 = Math.min(image.width, Math.max(x0 + 1, Math.round(right)));
    const colour = item.task ? dagShade(colours.dag, item.task.dagId) : colours[item.kind];
    for (const [first, count] of item.runs) {
      const bar = { id: item.id, kind: item.kind, first, count, x: left, y: first * rowHeight,
        width: Math.max(1, right - left), height: Math.max(1, count * rowHeight - gap) };
      const y0 = Math.floor(bar.y);
      const y1 = Math.min(image.height, Math.max(y0 + 1, Math.floor(bar.y + bar.height)));
      for (let y = y0; y < y1; y += 1) {
        pixels.fill(colour, y * image.width + x0, y * image.width + x1);
        if (item.kind === 'reserved') { // hatched: a diagonal line every 6 pixels
          for (let px = x0 + ((6 - ((x0 + y) % 6)) % 6); px < x1; px += 6) {
            pixels[y * image.width + px] = colours.fg;
          }
        }
      }
      bars.push(bar);
    }
  }
  context.putImageData(image, 0, 0);
  drawWhatIf(context, style, x, rowHeight, capacity, bars);
  if (state.detail) outline(context, style, bars, state.detail.id);
  if (state.hovered && state.hovered.kind === 'dag') drawEdges(context, style, bars, state.hovered);
  drawTimeAxis(context, style, from, to, x, chartHeight);
  // The now line in the text colour with a halo of the background's: seen over any bar.
  const now = liveNow();
  context.fillStyle = style.getPropertyValue('--now-halo');
  context.fillRect(x(now) - 1, 0, 4, chartHeight);
  context.fillStyle = style.getPropertyValue('--now');
  context.fillRect(x(now), 0, 2, chartHeight);
  window.reschedBars = bars;
  window.reschedDrawMs = performance.now() - started;
  // Milliseconds from the navigation to the first complete drawing (bench/web_render_bench.cc).
  if (window.reschedFirstDrawnAt === undefined && bars.length > 0) {
    window.reschedFirstDrawnAt = performance.now();
  }
}

function outline(context, style, bars, id) {
  context.strokeStyle = style.getPropertyValue('--fg');
  context.lineWidth = 2;
  for (const bar of bars) {
    if (bar.id === id) context.strokeRect(bar.x, bar.y, bar.width, bar.height);
  }
  context.lineWidth = 1;
}

// A DAG task's precedences: a line from each predecessor's end to each successor's start.
function drawEdges(context, style, bars, item) {
  const dag = item.task.dagId;
  const barOf = (task) => bars.find((b) => b.id === `${dag}/${task}`);
  context.strokeStyle = style.getPropertyValue('--fg');
  context.lineWidth = 1.5;
  for (const [pred, succ] of live.dagEdges.get(dag) || []) {
    if (pred !== item.task.task && succ !== item.task.task) continue;
    const a = barOf(pred);
    const b = barOf(succ);
    if (!a || !b) continue;
    context.beginPath();
    context.moveTo(a.x + a.width, a.y + a.height / 2);
    context.lineTo(b.x, b.y + b.height / 2);
    context.stroke();
  }
  context.lineWidth = 1;
}

// Ticks at a round step under the chart, labelled in UTC.
function drawTimeAxis(context, style, from, to, x, top) {
  const steps = [1, 5, 10, 30, 60, 300, 600, 1800, 3600, 7200, 21600, 43200, 86400, 604800];
  const step = steps.find((s) => (to - from) / s <= 8) || steps[steps.length - 1];
  context.fillStyle = style.getPropertyValue('--muted');
  context.font = '12px system-ui, sans-serif';
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) {
    context.fillRect(x(t), top, 1, 4);
    const iso = new Date(t * 1000).toISOString();
    const label = step >= 86400 ? iso.slice(0, 10) : iso.slice(11, 19);
    context.fillText(label, Math.min(x(t) + 2, context.canvas.width - 60), top + 15);
  }
}

// The item under a canvas point (client coordinates), or null.
function itemAt(clientX, clientY) {
  const canvas = document.getElementById('gantt');
  const box = canvas.getBoundingClientRect();
  const px = ((clientX - box.left) * canvas.width) / box.width;
  const py = ((clientY - box.top) * canvas.height) / box.height;
  const bar = window.reschedBars.find((b) => px >= b.x && px <= b.x + b.width && py >= b.y &&
    py <= b.y + b.height);
  return bar ? state.items.find((i) => i.id === bar.id) || null : null;
}

function row(list, term, value) {
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  dd.textContent = value;
  list.append(dt, dd);
}

function showDetail(item) {
  state.detail = item;
  const panel = document.getElementById('detail');
  const list = document.getElementById('detail-list');
  list.replaceChildren();
  panel.hidden = item === null;
  if (item === null) return;
  const now = liveNow();
  if (item.anonymous) {
    // What a user's token may see of another tenant's job: the capacity it takes.
    document.getElementById('detail-title').textContent = "Another tenant's job";
    row(list, 'State', item.job.state);
    row(list, 'Processors', item.job.allocation.processors);
    row(list, 'Start', item.job.allocation.start);
    row(list, 'End', item.job.allocation.end);
  } else if (item.job) {
    const job = item.job;
    document.getElementById('detail-title').textContent = `Job ${job.id}`;
    row(list, 'State', job.state);
    row(list, 'Model', JSON.stringify(job.spec.model));
    row(list, 'Processors', job.allocation.processors);
    row(list, 'Start', job.allocation.start);
    row(list, 'End', job.allocation.end);
    row(list, 'Submitted', job.submitted);
    // Saule et al. §2.1: flow over the sequential time p(1), counted up to now while it runs.
    const release = seconds(job.spec.release || job.submitted);
    const p1 = durationSeconds(job.sequentialTime);
    const reached = job.state === 'QUEUED' || job.state === 'RUNNING' ? now : item.end;
    if (p1 > 0) row(list, 'Stretch so far', ((reached - release) / p1).toFixed(3));
    if (job.guaranteed !== undefined) row(list, 'Guaranteed', String(job.guaranteed));
  } else if (item.task) {
    document.getElementById('detail-title').textContent = `DAG ${item.task.dagId}, task ${item.task.task}`;
    row(list, 'Processors', item.task.allocation.processors);
    row(list, 'Start', item.task.allocation.start);
    row(list, 'End', item.task.allocation.end);
    const edges = live.dagEdges.get(item.task.dagId) || [];
    row(list, 'After', edges.filter((e) => e[1] === item.task.task).map((e) => e[0]).join(', ') || '-');
    row(list, 'Before', edges.filter((e) => e[0] === item.task.task).map((e) => e[1]).join(', ') || '-');
  } else {
    const r = item.reservation;
    document.getElementById('detail-title').textContent = `Reservation ${r.id}`;
    row(list, 'Processors', r.processors);
    row(list, 'Start', r.start);
    row(list, 'End', r.end);
    row(list, 'Reason', r.reason || '-');
  }
}

function fillJobs() {
  if (!live.meta) return; // a table control used before the first schedule arrived
  const jobs = [...live.jobs].map(([key, job]) => ({ key, id: job.id || "(another tenant's)",
    state: job.state,
    processors: job.allocation ? job.allocation.processors : 0,
    start: job.allocation ? job.allocation.start : '', end: job.allocation ? job.allocation.end : '' }));
  const key = state.sortKey;
  const order = state.sortDescending ? -1 : 1;
  // Numbers as numbers, ids as people read them (j2 before j10).
  const compare = (a, b) => (typeof a === 'number' ? a - b
    : String(a).localeCompare(String(b), undefined, { numeric: true }));
  jobs.sort((a, b) => order * compare(a[key], b[key]));
  for (const th of document.querySelectorAll('#jobs th')) {
    const sorted = th.querySelector('button').dataset.sort === key;
    th.setAttribute('aria-sort', sorted ? (state.sortDescending ? 'descending' : 'ascending') : 'none');
  }
  const find = state.tableFind.toLowerCase();
  const found = find ? jobs.filter((job) => job.id.toLowerCase().includes(find)
    || job.state.toLowerCase().includes(find)) : jobs;
  // The page stays where it was as the schedule changes, unless the list got shorter.
  const pages = Math.max(1, Math.ceil(found.length / TABLE_PAGE_ROWS));
  state.tablePage = Math.min(state.tablePage, pages - 1);
  const first = state.tablePage * TABLE_PAGE_ROWS;
  const shown = found.slice(first, first + TABLE_PAGE_ROWS);
  document.getElementById('jobs-shown').textContent = found.length === 0
    ? (find ? 'No job matches.' : '')
    : `Jobs ${first + 1}-${first + shown.length} of ${found.length}`
      + (find ? ` matching (${jobs.length} in all).` : '.');
  document.getElementById('jobs-previous').disabled = state.tablePage === 0;
  document.getElementById('jobs-next').disabled = state.tablePage >= pages - 1;
  const body = document.querySelector('#jobs tbody');
  body.replaceChildren();
  for (const job of shown) {
    const tr = document.createElement('tr');
    tr.tabIndex = 0;
    tr.dataset.job = job.id;
    for (const value of [job.id, job.state, job.processors, job.start, job.end]) cell(tr, value);
    const open = () => { showDetail(state.items.find((i) => i.id === job.key) || null); draw(); };
    tr.addEventListener('click', open);
    tr.addEventListener('keydown', (e) => { if (e.key === 'Enter') open(); });
    body.append(tr);
  }
}

// Zoom around time t by `factor` (< 1 zooms in), and pan by `shift` seconds.
function zoom(factor, t) {
  const { from, to } = state.view || fitWindow();
  const at = t === undefined ? (from + to) / 2 : t;
  state.view = { from: at - (at - from) * factor, to: at + (to - at) * factor };
  draw();
}
function pan(shift) {
  const { from, to } = state.view || fitWindow();
  state.view = { from: from + shift, to: to + shift };
  draw();
}

function setUpChart() {
  const canvas = document.getElementById('gantt');
  const timeAt = (clientX) => {
    const box = canvas.getBoundingClientRect();
    const { from, to } = state.view || fitWindow();
    return from + ((clientX - box.left) / box.width) * (to - from);
  };
  canvas.addEventListener('wheel', (e) => {
    if (!live.meta) return;
    e.preventDefault();
    zoom(e.deltaY < 0 ? 0.8 : 1.25, timeAt(e.clientX));
  }, { passive: false });
  let drag = null;
  canvas.addEventListener('mousedown', (e) => { drag = { x: e.clientX, moved: false }; });
  window.addEventListener('mouseup', () => { setTimeout(() => { drag = null; }); });
  canvas.addEventListener('mousemove', (e) => {
    if (!live.meta) return;
    if (drag && e.buttons === 1 && Math.abs(e.clientX - drag.x) > 2) {
      pan(timeAt(drag.x) - timeAt(e.clientX));
      drag = { x: e.clientX, moved: true };
      return;
    }
    const item = itemAt(e.clientX, e.clientY);
    canvas.title = item ? `${item.id} (${item.kind})` : '';
    if (item !== state.hovered) {
      state.hovered = item;
      draw();
    }
  });
  canvas.addEventListener('click', (e) => {
    if (!live.meta || (drag && drag.moved)) return;
    showDetail(itemAt(e.clientX, e.clientY));
    draw();
  });
  canvas.addEventListener('dblclick', () => { state.view = null; draw(); });
  canvas.addEventListener('keydown', (e) => {
    if (!live.meta) return;
    const { from, to } = state.view || fitWindow();
    const moves = { '+': () => zoom(0.8), '=': () => zoom(0.8), '-': () => zoom(1.25),
      ArrowLeft: () => pan(-(to - from) / 10), ArrowRight: () => pan((to - from) / 10),
      0: () => { state.view = null; draw(); } };
    if (moves[e.key]) {
      e.preventDefault();
      moves[e.key]();
    }
  });
}

// What-if (docs/web.md): a dry-run placement kept apart from the schedule and drawn over it.
async function postJson(path, body, type) {
  const headers = { 'Content-Type': type };
  if (token()) headers.Authorization = `Bearer ${token()}`;
  const response = await fetch(path, { method: 'POST', body, headers });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${answer.code}: ${answer.message}`);
  return answer;
}

// `command`: the CLI command line that would commit what the dry run drew.
function showWhatIf(items, text, command) {
  state.whatIf = items;
  state.whatIfVersion = live.version;
  document.getElementById('what-if-result').textContent = text;
  document.getElementById('what-if-command').textContent = command || '';
  document.getElementById('what-if-command-line').hidden = !command;
  redrawSoon();
}

// A word of a command line, quoted for a POSIX shell where it needs it.
function shellWord(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

// The job form's model, as a JobSpec's model and as the CLI's model flag.
function jobModel(form) {
  if (form.model.value === 'amdahl') {
    const t1 = Number(form.t1.value);
    const alpha = Number(form.alpha.value);
    const kMin = Number(form.kmin.value) || 1;
    const kMax = Number(form.kmax.value) || 0;
    return { model: { amdahl: { t1: `${t1}s`, alpha, kMin, kMax } },
      flag: `--amdahl ${t1}s:${alpha}:${kMin}${kMax ? `:${kMax}` : ''}` };
  }
  const k = Number(form.k.value);
  const time = Number(form.seconds.value);
  return { model: { rigid: { k, time: `${time}s` } }, flag: `--rigid ${k}:${time}s` };
}

async function whatIfJob(form) {
  const { model, flag } = jobModel(form);
  const cluster = encodeURIComponent(state.selected);
  const answer = await postJson(`/api/v1/clusters/${cluster}/what-if/job`, JSON.stringify({ model }),
    'application/json');
  const a = answer.job.allocation;
  const moved = (answer.movedJobs || []).length;
  showWhatIf([{ id: 'what-if job', processors: a.processors, start: seconds(a.start), end: seconds(a.end) }],
    `The job would run on ${a.processors} processors from ${a.start} to ${a.end}` +
    (moved ? `, moving ${moved} queued job(s).` : '.'),
    `resched job submit ${flag} --cluster ${shellWord(state.selected)}`);
}

// A deadline as the CLI takes it: +DURATION from the cluster's now (+6h, +90m, +1d), or a time.
function deadlineOf(text) {
  const relative = /^\+(\d+(?:\.\d+)?)([smhd])$/.exec(text);
  if (!relative) return text;
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[relative[2]];
  return new Date((liveNow() + Number(relative[1]) * unit) * 1000).toISOString();
}

async function whatIfDag(form, file) {
  const cluster = encodeURIComponent(state.selected);
  const query = new URLSearchParams({ file: file.name });
  if (form.algorithm.value) query.set('algorithm', form.algorithm.value);
  const deadline = form.deadline.value.trim();
  if (deadline) query.set('deadline', deadlineOf(deadline));
  const command = ['resched', 'dag', 'query-deadline', '-f', file.name, '--cluster', state.selected,
    ...(form.algorithm.value ? ['--algorithm', form.algorithm.value] : []),
    ...(deadline ? ['--deadline', deadline] : []), '--commit'].map(shellWord).join(' ');
  const answer = await postJson(`/api/v1/clusters/${cluster}/what-if/dag?${query}`, await file.text(),
    'text/plain');
  const items = (answer.placements || []).map((p) => ({ id: `what-if ${p.task}`,
    processors: p.allocation.processors, start: seconds(p.allocation.start),
    end: seconds(p.allocation.end) }));
  const end = items.reduce((last, i) => Math.max(last, i.end), 0);
  const done = items.length > 0 ? `done at ${new Date(end * 1000).toISOString()}, ` : '';
  const tightest = answer.tightestDeadline ? ` The tightest deadline: ${answer.tightestDeadline}.` : '';
  showWhatIf(items, `${answer.feasible ? 'Feasible' : 'Not feasible'}: ${items.length} task(s), ` +
    `${done}${(answer.cpuHours || 0).toFixed(2)} CPU-hours.${tightest}`,
  answer.feasible ? command : '');
}

function setUpWhatIf() {
  const jobForm = document.getElementById('what-if-job');
  jobForm.addEventListener('submit', (e) => {
    e.preventDefault();
    whatIfJob(jobForm).catch((err) => showWhatIf([], err.message));
  });
  const dagForm = document.getElementById('what-if-dag');
  const planFile = (file) => whatIfDag(dagForm, file).catch((err) => showWhatIf([], err.message));
  dagForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (dagForm.file.files.length > 0) planFile(dagForm.file.files[0]);
  });
  const drop = document.getElementById('dag-drop');
  drop.addEventListener('dragover', (e) => e.preventDefault());
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    if (e.dataTransfer.files.length > 0) planFile(e.dataTransfer.files[0]);
  });
  document.getElementById('what-if-clear').addEventListener('click', () => showWhatIf([], ''));
  jobForm.model.addEventListener('change', () => {
    for (const label of jobForm.querySelectorAll('[data-model]')) {
      label.hidden = label.dataset.model !== jobForm.model.value;
      for (const input of label.querySelectorAll('input')) input.required = !label.hidden;
    }
  });
  getJson('/api/v1/algorithms').then((answer) => {
    const select = dagForm.algorithm;
    // The server's own choice when none is named, as the CLI leaves it.
    const byDefault = document.createElement('option');
    byDefault.value = '';
    byDefault.textContent = 'default (dl_bd_cpar; dl_rc_cpar with a deadline), as the CLI';
    select.append(byDefault);
    for (const a of answer.algorithms || []) {
      if (a.kind !== 'DAG_PLANNER') continue;
      const option = document.createElement('option');
      option.value = a.name;
      option.textContent = a.name;
      option.title = a.description || '';
      select.append(option);
    }
  }).catch((e) => setStatus(e.message));
}

// The what-if items, dashed, on the lowest processors free at their times (of the schedule's
// bars and the what-if items before them), else over the lowest ones: the API's dry runs give
// times and widths, not processor ids.
function drawWhatIf(context, style, x, rowHeight, capacity, bars) {
  if (state.whatIf.length === 0) return;
  const busy = Array.from({ length: capacity }, () => []);
  const lo = state.whatIf.reduce((m, i) => Math.min(m, i.start), Infinity);
  const hi = state.whatIf.reduce((m, i) => Math.max(m, i.end), -Infinity);
  for (const item of state.items) {
    if (item.end <= lo || item.start >= hi) continue;
    for (const p of item.ids) if (p < capacity) busy[p].push([item.start, item.end]);
  }
  const freeOver = (p, start, end) => busy[p].every(([s, e]) => e <= start || s >= end);
  context.setLineDash([4, 3]);
  context.strokeStyle = style.getPropertyValue('--whatif');
  context.fillStyle = style.getPropertyValue('--whatif');
  for (const item of [...state.whatIf].sort((a, b) => a.start - b.start)) {
    let first = 0;
    const fits = (f) => {
      for (let p = f; p < f + item.processors; p += 1) {
        if (!freeOver(p, item.start, item.end)) return false;
      }
      return true;
    };
    while (first + item.processors <= capacity && !fits(first)) first += 1;
    if (first + item.processors > capacity) first = 0;
    for (let p = first; p < first + item.processors; p += 1) busy[p].push([item.start, item.end]);
    const bar = { id: item.id, kind: 'whatif', first, count: item.processors, x: x(item.start),
      y: first * rowHeight, width: Math.max(1, x(item.end) - x(item.start)),
      height: item.processors * rowHeight };
    context.globalAlpha = 0.25;
    context.fillRect(bar.x, bar.y, bar.width, bar.height);
    context.globalAlpha = 1;
    context.strokeRect(bar.x, bar.y, bar.width, bar.height);
    bars.push(bar);
  }
  context.setLineDash([]);
}

for (const button of document.querySelectorAll('#jobs th button')) {
  button.addEventListener('click', () => {
    // The same column again reverses the order.
    state.sortDescending = state.sortKey === button.dataset.sort && !state.sortDescending;
    state.sortKey = button.dataset.sort;
    state.tablePage = 0;
    fillJobs();
  });
}
document.getElementById('jobs-previous').addEventListener('click', () => {
  state.tablePage = Math.max(0, state.tablePage - 1);
  fillJobs();
});
document.getElementById('jobs-next').addEventListener('click', () => {
  state.tablePage += 1; // fillJobs keeps it within the pages
  fillJobs();
});
document.getElementById('jobs-find').addEventListener('input', (e) => {
  state.tableFind = e.target.value.trim();
  state.tablePage = 0;
  fillJobs();
});
document.getElementById('history').addEventListener('change', () => {
  if (!live.cluster) return;
  live.pastFrom = pastFrom();
  refetchSoon();
});
document.getElementById('token').value = token();
document.getElementById('token').addEventListener('change', (e) => {
  sessionStorage.setItem('reschedToken', e.target.value);
  // Everything again with the new token, the event stream included.
  loadClusters().then(() => state.selected && select(state.selected))
    .catch((err) => setStatus(err.message, 'stale'));
});
window.addEventListener('hashchange', () => {
  const wanted = decodeURIComponent(location.hash.slice(1));
  if (wanted && wanted !== state.selected) select(wanted);
});
setUpChart();
setUpWhatIf();

function refreshClusters() {
  loadClusters().catch((e) => {
    if (!live.source) setStatus(`the server does not answer: ${e.message}`, 'stale');
  });
}
refreshClusters();
setInterval(refreshClusters, CLUSTERS_REFRESH_MS);
// A WALL clock's now moves on between events: the line and the header follow each second.
setInterval(() => {
  if (live.meta && live.clusterInfo && live.clusterInfo.spec.clock === 'WALL') redrawSoon();
}, 1000);
