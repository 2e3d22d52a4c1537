// The selected cluster's schedule as the page holds it, kept in step with the cluster's event
// stream: the stream's first SCHEDULE event fills it and every later event changes the job or
// hold it carries, on the processor rows the server keeps for it. The page fetches the schedule
// only for what the events do not carry (the past before the stream, a DAG's tasks, items whose
// rows the server reassigned, another tenant's anonymous jobs), never two fetches at once, and
// says in plain words whenever what it shows is not live (docs/web.md).
'use strict';

const live = {
  cluster: null, // the cluster held
  clusterInfo: null, // its ListClusters entry (the clock's kind)
  meta: null, // { capacity, groups }: null until the first schedule
  jobs: new Map(), // id -> Job
  holds: new Map(), // id -> Reservation
  dagTasks: [], // DagTaskSlot, from the last fetch
  dags: new Map(), // DAG id -> its DagReservation (label, owner, ...), edges as [[from, to]]
  pastFrom: null, // ISO start of the past kept (the "Past shown" picker), null: none
  version: 0, // bumps on every change, so the page rebuilds its items only when they moved
  now: { server: 0, local: 0 }, // the cluster's last now (seconds), and when it came
  fetching: false,
  fetchAgain: false, // something changed during the fetch that it may not include
  buffered: null, // events that arrived during a fetch, applied again over its answer
  refetchTimer: null,
  source: null,
  retryTimer: null,
  state: 'idle', // live, connecting, stale, refused, gone, missing
  onChange: () => {},
  onState: () => {},
  // Counted for the tests and the cost measurement (bench/web_cost).
  counts: { events: 0, scheduleFetches: 0, dagFetches: 0, rowsMoved: 0 },
};
window.reschedLive = live;

// The prefix of the keys of other tenants' jobs, which no job id starts with.
const ANONYMOUS = '\u0000other:';

function token() { return sessionStorage.getItem('reschedToken') || ''; }

async function getJson(path) {
  const headers = token() ? { Authorization: `Bearer ${token()}` } : {};
  const response = await fetch(path, { cache: 'no-store', headers });
  const body = await response.json();
  if (!response.ok) {
    const error = new Error(`${body.code}: ${body.message}`);
    error.httpStatus = response.status;
    throw error;
  }
  return body;
}

// The cluster's now in seconds: on a WALL clock it moves on between events.
function liveNow() {
  const wall = live.clusterInfo && live.clusterInfo.spec.clock === 'WALL';
  const elapsed = wall ? Date.now() / 1000 - live.now.local : 0;
  return live.now.server + Math.max(0, elapsed);
}

function setLiveState(state, text) {
  live.state = state;
  live.onState(state, text);
}

function changed() {
  live.version += 1;
  live.onChange();
}

function noteNow(timestamp) {
  if (!timestamp) return;
  live.now = { server: Date.parse(timestamp) / 1000, local: Date.now() / 1000 };
}

// A job drawn keeps its place in the map; one that occupies nothing (a queued job cancelled,
// a running one cancelled at its start) leaves it, as it leaves the schedule.
function putJob(job) {
  const a = job.allocation;
  if (a && a.processors > 0 && Date.parse(a.end) > Date.parse(a.start)) live.jobs.set(job.id, job);
  else live.jobs.delete(job.id);
}

function takeSchedule(schedule) {
  live.meta = { capacity: schedule.capacity || 0, groups: schedule.groups || [] };
  noteNow(schedule.now);
  live.jobs = new Map();
  // Another tenant's jobs come without ids (a user's token): each is capacity in use, held
  // under a key of its own.
  let anonymous = 0;
  for (const job of schedule.jobs || []) {
    if (job.id) putJob(job); else live.jobs.set(`${ANONYMOUS}${anonymous++}`, job);
  }
  live.holds = new Map((schedule.reservations || []).map((r) => [r.id, r]));
  live.dagTasks = schedule.dagTasks || [];
}

// An item the server moved to other rows without changing it: a copy on its new rows (the
// runs drawn are cached on the object).
function moveRows(move) {
  live.counts.rowsMoved += 1;
  const ids = move.processorIds || [];
  if (move.jobId) {
    const job = live.jobs.get(move.jobId);
    if (job) live.jobs.set(move.jobId, { ...job, allocation: { ...job.allocation, processorIds: ids } });
  } else if (move.reservationId) {
    const hold = live.holds.get(move.reservationId);
    if (hold) live.holds.set(move.reservationId, { ...hold, processorIds: ids });
  } else if (move.dagId) {
    live.dagTasks = live.dagTasks.map((t) => (t.dagId === move.dagId && t.task === move.task
      ? { ...t, allocation: { ...t.allocation, processorIds: ids } } : t));
  } else {
    refetchSoon({ delay: 3000 }); // another tenant's item: which one shows only in a fetch
  }
}

function applyEvent(kind, event) {
  noteNow(event.now);
  switch (kind) {
    case 'SCHEDULE': {
      // The stream's start (or a resume the server could not serve event by event): the live
      // part; the ended jobs held so far stay, the past is fetched once.
      const ended = [...live.jobs.values()].filter((j) => !['QUEUED', 'RUNNING'].includes(j.state));
      takeSchedule(event.schedule || {});
      for (const job of ended) if (!live.jobs.has(job.id)) live.jobs.set(job.id, job);
      if (ended.length === 0) fetchPast().catch((e) => setLiveState('stale', `not live: ${e.message}`));
      break;
    }
    case 'JOB_CHANGED':
      // Another tenant's job comes without its id: which bar it is shows only in a fetch, at
      // most one every few seconds.
      if (!event.job || !event.job.id) {
        refetchSoon({ delay: 3000 });
      } else {
        putJob(event.job);
        // Rebuilt by a restarted server for a stream that resumed: no rows, so fetch them.
        if (live.jobs.has(event.job.id) && !event.job.allocation.processorIds) refetchSoon();
      }
      break;
    case 'RESERVATION_ADDED':
      live.holds.set(event.reservation.id, event.reservation);
      break;
    case 'RESERVATION_REMOVED':
      live.holds.delete(event.reservation.id);
      break;
    case 'DAG_RESERVED': case 'DAG_RELEASED': case 'DAG_TASK_CHANGED':
      // A DAG's tasks are drawn from the schedule's slots (what each task still holds).
      refetchSoon({ dags: true });
      break;
    default:
      break;
  }
  for (const move of event.movedRows || []) moveRows(move);
}

function onEvent(kind, message) {
  if (message.target !== live.source) return; // a stream already closed
  const event = JSON.parse(message.data);
  live.counts.events += 1;
  if (live.fetching) {
    live.buffered.push([kind, event]);
    live.fetchAgain = live.fetchAgain || kind === 'SCHEDULE';
  }
  applyEvent(kind, event);
  changed();
}

// The schedule from the past kept on (and the DAG list when asked), at most one fetch at a
// time: a need that arises during one is met by one more after it.
let wantDags = false;
function refetchSoon(options = {}) {
  wantDags = wantDags || Boolean(options.dags);
  if (live.fetching) {
    live.fetchAgain = true;
    return;
  }
  if (live.refetchTimer !== null) return;
  // Events come in bursts (a submission moves several jobs): one fetch after the burst.
  live.refetchTimer = setTimeout(() => {
    live.refetchTimer = null;
    refetch().catch((e) => setLiveState('stale', `not live: ${e.message}`));
  }, options.delay || 200);
}

async function refetch() {
  if (!live.cluster || live.fetching) return;
  const cluster = live.cluster;
  const name = encodeURIComponent(cluster);
  live.fetching = true;
  live.fetchAgain = false;
  live.buffered = [];
  const dags = wantDags;
  wantDags = false;
  try {
    const from = live.pastFrom ? `&from=${encodeURIComponent(live.pastFrom)}` : '';
    live.counts.scheduleFetches += 1;
    const schedule = await getJson(`/api/v1/clusters/${name}/schedule?include_finished=true${from}`);
    if (cluster !== live.cluster) return; // another cluster was chosen meanwhile
    takeSchedule(schedule);
    // What happened during the fetch, again over its answer: in order, each event leaves its
    // item as its latest change made it.
    for (const [kind, event] of live.buffered) if (kind !== 'SCHEDULE') applyEvent(kind, event);
  } finally {
    live.fetching = false;
    live.buffered = null;
  }
  changed();
  if (dags) await fetchDags();
  if (live.fetchAgain) refetchSoon();
}

// The jobs that ended in the past kept, before the stream began (it carries the present on).
let pastFetching = false;
async function fetchPast() {
  const cluster = live.cluster;
  const to = new Date(liveNow() * 1000).toISOString();
  if (!live.pastFrom || pastFetching || Date.parse(live.pastFrom) >= Date.parse(to)) return;
  pastFetching = true;
  try {
    live.counts.scheduleFetches += 1;
    const past = await getJson(`/api/v1/clusters/${encodeURIComponent(cluster)}/schedule?` +
      `include_finished=true&from=${encodeURIComponent(live.pastFrom)}&to=${encodeURIComponent(to)}`);
    if (cluster !== live.cluster) return;
    for (const job of past.jobs || []) {
      if (job.id && !['QUEUED', 'RUNNING'].includes(job.state) && !live.jobs.has(job.id)) {
        putJob(job);
      }
    }
  } finally {
    pastFetching = false;
  }
  changed();
}

// The DAG reservations: their labels, owners and precedences (the schedule's slots carry none).
async function fetchDags() {
  const cluster = live.cluster;
  live.counts.dagFetches += 1;
  const answer = await getJson(`/api/v1/clusters/${encodeURIComponent(cluster)}/dags`);
  if (cluster !== live.cluster) return;
  live.dags = new Map((answer.dags || []).map((d) => [d.id,
    { ...d, edges: (d.edges || []).map((e) => [e.from, e.to]) }]));
  changed();
}

function closeStream() {
  if (live.source) live.source.close();
  live.source = null;
  clearTimeout(live.retryTimer);
  live.retryTimer = null;
}

// Why the stream could not open: the cluster is gone, or the server refused (the open pages'
// cap); the page says so and tries again.
async function streamRefused(cluster) {
  try {
    await getJson(`/api/v1/clusters/${encodeURIComponent(cluster)}`);
  } catch (e) {
    if (e.httpStatus === 404) {
      setLiveState('gone', `cluster '${cluster}' does not exist (any more)`);
      return;
    }
    if (e.httpStatus === undefined || e instanceof TypeError) {
      setLiveState('stale', 'not live: the server does not answer; trying again');
      live.retryTimer = setTimeout(() => openStream(cluster), 3000);
      return;
    }
  }
  setLiveState('refused', 'not live: the server refused live updates (it serves a limited ' +
    'number of open pages); trying again in 10 s');
  live.retryTimer = setTimeout(() => openStream(cluster), 10000);
}

function openStream(cluster) {
  closeStream();
  if (cluster !== live.cluster) return;
  setLiveState('connecting', 'connecting to live updates…');
  // EventSource cannot send headers: the token goes as a parameter (docs/web.md).
  const query = token() ? `?access_token=${encodeURIComponent(token())}` : '';
  const source = new EventSource(`/api/v1/clusters/${encodeURIComponent(cluster)}/events${query}`);
  live.source = source;
  for (const kind of ['SCHEDULE', 'JOB_CHANGED', 'RESERVATION_ADDED', 'RESERVATION_REMOVED',
    'CLOCK_ADVANCED', 'DAG_RESERVED', 'DAG_RELEASED', 'DAG_TASK_CHANGED']) {
    source.addEventListener(kind, (message) => onEvent(kind, message));
  }
  source.addEventListener('open', () => setLiveState('live', 'live'));
  source.addEventListener('end', (message) => {
    if (message.target !== live.source) return;
    const ended = JSON.parse(message.data);
    if (ended.code === 'NOT_FOUND') {
      closeStream();
      setLiveState('gone', `cluster '${cluster}' was deleted`);
      return;
    }
    // A server stopping, a replica handing the cluster over: EventSource reconnects.
    setLiveState('stale', `not live: ${ended.message}; reconnecting…`);
  });
  source.addEventListener('error', () => {
    if (source !== live.source) return;
    if (source.readyState === EventSource.CLOSED) {
      live.source = null;
      streamRefused(cluster);
    } else {
      setLiveState('stale', 'not live: the connection to the server was lost; reconnecting…');
    }
  });
}

// Holds `cluster` from now on: what was held of another is dropped.
function liveOpen(cluster, clusterInfo, pastFrom) {
  clearTimeout(live.refetchTimer);
  live.refetchTimer = null;
  live.cluster = cluster;
  live.clusterInfo = clusterInfo;
  live.pastFrom = pastFrom;
  live.meta = null;
  live.jobs = new Map();
  live.holds = new Map();
  live.dagTasks = [];
  live.dags = new Map();
  changed();
  openStream(cluster);
  fetchDags().catch((e) => setLiveState('stale', `not live: ${e.message}`));
}

function liveClose() {
  closeStream();
  live.cluster = null;
}

// A back/forward-cached page keeps its connections open unless it closes them: Chromium then
// runs out of connections to the server after a few navigations.
window.addEventListener('pagehide', () => closeStream());
window.addEventListener('pageshow', (e) => {
  if (e.persisted && live.cluster) openStream(live.cluster);
});
