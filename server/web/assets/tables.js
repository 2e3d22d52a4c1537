// The chart's text alternative: the selected cluster's jobs (a page at a time, sorted by any
// column), its holds and its DAG reservations, each limited to what the filters keep.
'use strict';

// A table of every job of a large cluster would cost more to build at each update than the
// chart: it shows a page of them at a time, rebuilt at most every TABLE_REFRESH_MS.
const TABLE_PAGE_ROWS = 500;
const TABLE_REFRESH_MS = 500;
// Holds and DAG reservations are few; past this many the tables say how many are left out.
const SMALL_TABLE_ROWS = 500;

function cell(row, value) {
  const td = document.createElement('td');
  td.textContent = value;
  row.append(td);
}

// At once when the tables were last filled long enough ago, else once that time is up.
function tableSoon() {
  if (state.tablePending !== null) return;
  const wait = Math.max(0, state.tableFilledAt + TABLE_REFRESH_MS - performance.now());
  state.tablePending = setTimeout(() => {
    state.tablePending = null;
    state.tableFilledAt = performance.now();
    fillTables();
  }, wait);
}

function fillTables() {
  fillJobs();
  fillHolds();
  fillDags();
}

// A row that opens `item`'s details on a click or Enter.
function itemRow(values, item, dataset) {
  const tr = document.createElement('tr');
  tr.tabIndex = 0;
  Object.assign(tr.dataset, dataset);
  for (const value of values) cell(tr, value);
  const open = () => { showDetail(item); drawGantt(); };
  tr.addEventListener('click', open);
  tr.addEventListener('keydown', (e) => { if (e.key === 'Enter') open(); });
  return tr;
}

// The jobs the filters keep, as the table and its CSV export list them.
function jobRows() {
  return state.items.filter((i) => i.job && itemMatches(i)).map((item) => ({ item,
    id: item.anonymous ? "(another tenant's)" : item.job.id, name: item.name, owner: item.owner,
    state: item.job.state, processors: item.processors, start: item.start, end: item.end,
    wait: item.wait }));
}

function fillJobs() {
  if (!live.meta) return; // a table control used before the first schedule arrived
  const jobs = jobRows();
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
  const all = state.items.reduce((n, i) => n + (i.job ? 1 : 0), 0);
  // The page stays where it was as the schedule changes, unless the list got shorter.
  const pages = Math.max(1, Math.ceil(jobs.length / TABLE_PAGE_ROWS));
  state.tablePage = Math.min(state.tablePage, pages - 1);
  const first = state.tablePage * TABLE_PAGE_ROWS;
  const shown = jobs.slice(first, first + TABLE_PAGE_ROWS);
  const filtering = filterActive();
  document.getElementById('jobs-shown').textContent = jobs.length === 0
    ? (filtering ? 'No job matches.' : '')
    : `Jobs ${first + 1}-${first + shown.length} of ${jobs.length}`
      + (filtering ? ` matching (${all} in all).` : '.');
  document.getElementById('jobs-previous').disabled = state.tablePage === 0;
  document.getElementById('jobs-next').disabled = state.tablePage >= pages - 1;
  for (const th of document.querySelectorAll('#jobs th[data-time]')) {
    th.querySelector('button').textContent = `${th.dataset.time} (${state.utc ? 'UTC' : 'local'})`;
  }
  document.querySelector('#jobs tbody').replaceChildren(...shown.map((job) => itemRow(
    [job.id, job.name || '-', job.owner || '-', job.state, job.processors, formatTime(job.start),
      formatTime(job.end), formatDuration(job.wait)],
    job.item, { job: job.id })));
}

function fillHolds() {
  const holds = state.items.filter((i) => i.reservation && itemMatches(i))
    .sort((a, b) => a.start - b.start);
  const body = document.querySelector('#holds tbody');
  body.replaceChildren(...holds.slice(0, SMALL_TABLE_ROWS).map((item) => itemRow(
    [item.reservation.id, item.processors, formatTime(item.start), formatTime(item.end),
      item.reservation.reason || '-'], item, { hold: item.reservation.id })));
  document.getElementById('holds-shown').textContent = holds.length === 0 ? 'None.'
    : (holds.length > SMALL_TABLE_ROWS ? `The first ${SMALL_TABLE_ROWS} of ${holds.length}.` : '');
}

// A DAG reservation's row: its label, owner and what its tasks hold; a click opens its first
// task's details and finds the DAG (its tasks stand out on the chart).
function fillDags() {
  const tasksOf = new Map();
  for (const item of state.items) {
    if (!item.task) continue;
    if (!tasksOf.has(item.task.dagId)) tasksOf.set(item.task.dagId, []);
    tasksOf.get(item.task.dagId).push(item);
  }
  const find = state.find.toLowerCase();
  // A DAG is listed when the filters keep one of its tasks drawn, or the DAG itself.
  const keeps = (dag) => {
    if ((tasksOf.get(dag.id) || []).some(itemMatches)) return true;
    if (state.ownerFilter && dag.owner !== state.ownerFilter) return false;
    if (state.stateFilter && state.stateFilter !== 'dag') return false;
    return `${dag.id}\n${dag.label || ''}\n${dag.owner || ''}`.toLowerCase().includes(find);
  };
  const dags = [...live.dags.values()].filter(keeps);
  const body = document.querySelector('#dags tbody');
  body.replaceChildren(...dags.slice(0, SMALL_TABLE_ROWS).map((dag) => {
    const tasks = tasksOf.get(dag.id) || [];
    const tr = itemRow([dag.id, dag.label || '-', dag.owner || '-',
      `${tasks.length} of ${(dag.placements || []).length}`, dag.algorithm || '-',
      formatTime(seconds(dag.release)), formatTime(seconds(dag.completion)),
      (dag.cpuHours || 0).toFixed(2)], tasks[0] || null, { dag: dag.id });
    tr.addEventListener('click', () => setFind(dag.id));
    return tr;
  }));
  document.getElementById('dags-shown').textContent = dags.length === 0 ? 'None.'
    : (dags.length > SMALL_TABLE_ROWS ? `The first ${SMALL_TABLE_ROWS} of ${dags.length}.` : '');
}

function setUpTables() {
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
}
