// The web view: the cluster list, and for the selected cluster its schedule as a Gantt chart
// (gantt.js) and tables (tables.js), kept live by the cluster's event stream (live.js), with
// filters, details and exports. Reads the JSON API only (docs/web.md).
'use strict';

const state = {
  clusters: [],
  selected: null,
  sortKey: 'start',
  sortDescending: false,
  tablePage: 0, // which page of TABLE_PAGE_ROWS jobs the table shows
  find: '', // the items whose id, name, owner, state, DAG or reason contain it (any case)
  ownerFilter: '', // the tenant whose items are kept ('': every one)
  stateFilter: '', // the kind of item kept: queued, running, ended, dag, reserved ('': all)
  owners: '', // the tenants the owner filter lists, one per line
  utc: true, // times in UTC, else in the browser's time zone
  view: null, // the time window shown, {from, to} in seconds; null: fit the schedule
  rows: null, // the processor rows shown, {first, count}; null: all
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
// The cluster list (utilization, counts) is read again this often; the selected cluster's
// schedule comes through its event stream.
const CLUSTERS_REFRESH_MS = 5000;

function seconds(timestamp) { return timestamp ? Date.parse(timestamp) / 1000 : 0; }
function durationSeconds(text) { return text ? Number(String(text).replace(/s$/, '')) : 0; }
// A number as people write it: 0.22, not 0.22000000000000003.
function plain(value) { return String(Number(Number(value).toPrecision(6))); }
// A duration in words: 45 s, 12 min 30 s, 3 h 05 min, 2 d 4 h.
function formatDuration(total) {
  if (!Number.isFinite(total)) return '-';
  if (total < 0) return `-${formatDuration(-total)}`;
  if (total < 60) return `${plain(total.toFixed(total < 10 ? 2 : 1))} s`;
  const s = Math.round(total);
  const two = (n) => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)} min ${two(s % 60)} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${two(Math.floor((s % 3600) / 60))} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}
function setStatus(text, liveState) {
  const status = document.getElementById('status');
  status.textContent = text;
  status.dataset.state = liveState || '';
  document.body.dataset.live = liveState || '';
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
  state.rows = null;
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
      for (const body of document.querySelectorAll('#jobs tbody, #holds tbody, #dags tbody')) {
        body.replaceChildren();
      }
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
      listOwners();
      tableSoon();
    }
    drawGantt();
    document.getElementById('cluster-now').textContent =
      `now: ${formatTime(liveNow())} ${zoneName()}`;
  });
}

// Runs of an item's processor ids, cached on the object an event or a fetch gave.
function runsOnce(holder, ids) {
  if (!holder.runsCache) holder.runsCache = runsOf(ids || []);
  return holder.runsCache;
}

// Jobs, holds and DAG tasks as the chart draws them and the filters match them: `label` on
// their bars, `search` what Find looks in.
function itemsOf() {
  const items = [];
  const searchOf = (...words) => words.filter(Boolean).join('\n').toLowerCase();
  for (const [key, job] of live.jobs) {
    const a = job.allocation;
    const spec = job.spec || {};
    const kind = KIND_OF_STATE[job.state] || 'queued';
    const start = seconds(a.start);
    const released = spec.release || job.submitted;
    items.push({ id: key, kind, job, anonymous: !job.id, start, end: seconds(a.end),
      processors: a.processors || 0, ids: a.processorIds || [], runs: runsOnce(job, a.processorIds),
      name: spec.name || '', owner: spec.owner || '',
      label: job.id ? [job.id, spec.name].filter(Boolean).join(' ') : "another tenant's",
      wait: released ? start - seconds(released) : NaN,
      search: searchOf(job.id, spec.name, spec.owner, job.state) });
  }
  for (const reservation of live.holds.values()) {
    items.push({ id: reservation.id, kind: 'reserved', reservation,
      start: seconds(reservation.start), end: seconds(reservation.end),
      processors: reservation.processors || 0, ids: reservation.processorIds || [],
      runs: runsOnce(reservation, reservation.processorIds), name: '', owner: '',
      label: reservation.reason || reservation.id,
      search: searchOf(reservation.id, reservation.reason, 'hold') });
  }
  for (const task of live.dagTasks) {
    const dag = live.dags.get(task.dagId) || {};
    items.push({ id: `${task.dagId}/${task.task}`, kind: 'dag', task,
      start: seconds(task.allocation.start), end: seconds(task.allocation.end),
      processors: task.allocation.processors || 0, ids: task.allocation.processorIds || [],
      runs: runsOnce(task, task.allocation.processorIds), name: task.task,
      owner: task.owner || dag.owner || '', label: task.task,
      search: searchOf(task.dagId, task.task, dag.label, task.owner || dag.owner, task.state) });
  }
  return items;
}

// The filters above the chart: an item they leave out is faded on the chart and left out of the
// tables.
function filterActive() {
  return state.find !== '' || state.ownerFilter !== '' || state.stateFilter !== '';
}
function itemMatches(item) {
  if (state.stateFilter && item.kind !== state.stateFilter) return false;
  if (state.ownerFilter && item.owner !== state.ownerFilter) return false;
  return state.find === '' || item.search.includes(state.find.toLowerCase());
}
// A filter the user changed shows at once (the throttle is for bursts of events).
function filtersChanged() {
  state.tablePage = 0;
  state.tableFilledAt = performance.now();
  fillTables();
  drawGantt();
}
function setFind(text) {
  document.getElementById('find').value = text;
  state.find = text;
  filtersChanged();
}
// The tenants of the items held, as the owner filter's choices (rebuilt only when they change).
function listOwners() {
  const owners = [...new Set(state.items.map((i) => i.owner).filter(Boolean))].sort();
  if (owners.join('\n') === state.owners) return;
  state.owners = owners.join('\n');
  const select = document.getElementById('filter-owner');
  const every = document.createElement('option');
  every.value = '';
  every.textContent = 'every tenant';
  select.replaceChildren(every, ...owners.map((owner) => {
    const option = document.createElement('option');
    option.value = owner;
    option.textContent = owner;
    return option;
  }));
  select.value = owners.includes(state.ownerFilter) ? state.ownerFilter : '';
  state.ownerFilter = select.value;
}
function setUpFilters() {
  document.getElementById('find').addEventListener('input', (e) => {
    state.find = e.target.value.trim();
    filtersChanged();
  });
  document.getElementById('filter-owner').addEventListener('change', (e) => {
    state.ownerFilter = e.target.value;
    filtersChanged();
  });
  document.getElementById('filter-state').addEventListener('change', (e) => {
    state.stateFilter = e.target.value;
    filtersChanged();
  });
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
setUpTables();
setUpFilters();
setUpExports();
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
