// The details panel: what the page knows of the job, DAG task or hold a click (or Enter on a
// table row) chose, in words.
'use strict';

// A runtime model (the JSON of resched.v1.RuntimeModel) in words.
function modelInWords(model) {
  if (!model) return '-';
  const time = (text) => formatDuration(durationSeconds(text));
  const widths = (kMin, kMax) => `on ${kMin || 1} to ${kMax ? kMax : "the cluster's"} processors`;
  if (model.rigid) {
    return `rigid: ${model.rigid.k} processors for ${time(model.rigid.time)}`;
  }
  if (model.amdahl) {
    const m = model.amdahl;
    return `moldable by Amdahl's law: ${time(m.t1)} on one processor, sequential fraction ` +
      `${plain(m.alpha || 0)}, ${widths(m.kMin, m.kMax)}`;
  }
  if (model.downey) {
    const m = model.downey;
    return `moldable by Downey's model: ${time(m.t1)} on one processor, average parallelism ` +
      `${plain(m.a || 1)}, variance ${plain(m.sigma || 0)}, ${widths(m.kMin, m.kMax)}`;
  }
  if (model.table) {
    return `moldable by a table: ${(model.table.entries || [])
      .map((e) => `${e.k} processors ${time(e.time)}`).join(', ')}`;
  }
  if (model.powerOfTwo) {
    return `moldable on powers of two: ${(model.powerOfTwo.times || [])
      .map((t, i) => `${2 ** i} processors ${time(t)}`).join(', ')}`;
  }
  if (model.ceil) {
    return `moldable by ceil(${model.ceil.reqProcs} / k) × ${time(model.ceil.reqTime)}, on 1 to ` +
      `${model.ceil.reqProcs} processors`;
  }
  if (model.communication) {
    const m = model.communication;
    return `moldable with communication: ${plain(m.flops || 0)} flop at ${plain(m.processorSpeed || 0)}` +
      ` flop/s a processor, a ${plain(m.matrixSize || 0)}-element matrix side, latency ` +
      `${plain(m.latencySeconds || 0)} s, ${widths(m.kMin, m.kMax)}`;
  }
  return '-';
}

function row(list, term, value) {
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  dd.textContent = value;
  list.append(dt, dd);
}

// Start, end and how long, in the zone the page shows.
function spanRows(list, item) {
  row(list, 'Start', formatTime(item.start));
  row(list, 'End', formatTime(item.end));
  row(list, 'Duration', formatDuration(item.end - item.start));
}

function jobDetailRows(list, item) {
  const job = item.job;
  const spec = job.spec || {};
  row(list, 'Name', spec.name || '-');
  row(list, 'Owner', spec.owner || '-');
  row(list, 'State', job.state);
  row(list, 'Model', modelInWords(spec.model));
  row(list, 'Processors', item.processors);
  if (job.group !== undefined) row(list, 'Processor group', job.group);
  spanRows(list, item);
  row(list, 'Submitted', formatTime(seconds(job.submitted)));
  if (spec.release) row(list, 'Release', formatTime(seconds(spec.release)));
  const now = liveNow();
  const waiting = job.state === 'QUEUED';
  if (Number.isFinite(item.wait)) {
    row(list, waiting ? 'Wait (planned)' : 'Wait', formatDuration(item.wait));
  }
  // Saule et al. §2.1: flow over the sequential time p(1), counted up to now while it runs.
  const release = seconds(spec.release || job.submitted);
  const p1 = durationSeconds(job.sequentialTime);
  const reached = waiting || job.state === 'RUNNING' ? now : item.end;
  if (p1 > 0) {
    row(list, 'Stretch so far', `${((reached - release) / p1).toFixed(3)} (the time since its ` +
      `release over its time on one processor, ${formatDuration(p1)}, as Saule et al. §2.1 define ` +
      'stretch: below 1 for a job that runs on several processors)');
  }
  if (spec.deadline) row(list, 'Deadline asked', formatTime(seconds(spec.deadline)));
  if (job.guaranteed !== undefined) {
    row(list, 'Guaranteed', job.guaranteed ? 'yes: the policy keeps or improves this start'
      : 'no: an estimate the policy may move');
  }
}

function showDetail(item) {
  state.detail = item;
  const panel = document.getElementById('detail');
  const list = document.getElementById('detail-list');
  const title = document.getElementById('detail-title');
  list.replaceChildren();
  panel.hidden = item === null;
  if (item === null) return;
  if (item.anonymous) {
    // What a user's token may see of another tenant's job: the capacity it takes.
    title.textContent = "Another tenant's job";
    row(list, 'State', item.job.state);
    row(list, 'Processors', item.processors);
    spanRows(list, item);
  } else if (item.job) {
    title.textContent = `Job ${item.job.id}`;
    jobDetailRows(list, item);
  } else if (item.task) {
    const task = item.task;
    const dag = live.dags.get(task.dagId) || { edges: [] };
    title.textContent = `DAG ${task.dagId}, task ${task.task}`;
    row(list, 'DAG label', dag.label || '-');
    row(list, 'Owner', item.owner || '-');
    row(list, 'State', task.state || '-');
    row(list, 'Processors', item.processors);
    spanRows(list, item);
    row(list, 'After', dag.edges.filter((e) => e[1] === task.task).map((e) => e[0]).join(', ') || '-');
    row(list, 'Before', dag.edges.filter((e) => e[0] === task.task).map((e) => e[1]).join(', ') || '-');
  } else {
    const hold = item.reservation;
    title.textContent = `Hold ${hold.id}`;
    row(list, 'Processors', item.processors);
    if (hold.group !== undefined) row(list, 'Processor group', hold.group);
    spanRows(list, item);
    row(list, 'Reason', hold.reason || '-');
  }
}
