// What if (docs/web.md): a job or a DAG file placed as a dry run, kept apart from the schedule and
// drawn dashed over it (gantt.js), with the CLI command that would commit it.
'use strict';

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
    `The job would run on ${a.processors} processors from ${formatTime(seconds(a.start))} to ` +
    `${formatTime(seconds(a.end))} (${zoneName()})` +
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
  const done = items.length > 0 ? `done at ${formatTime(end)} (${zoneName()}), ` : '';
  const tightest = answer.tightestDeadline
    ? ` The tightest deadline: ${formatTime(seconds(answer.tightestDeadline))}.` : '';
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

