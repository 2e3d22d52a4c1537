// The Gantt chart on its canvas: the items the page holds (app.js builds them from live.js) on
// their processor rows over time, with a processor axis (labels and group boundaries), a time
// axis in UTC or local time with dates, and a strip of the cluster's busy processors under it.
// Zoom and pan on both axes (docs/web.md).
'use strict';

// Canvas layout, in canvas pixels: the processor axis left of the chart, the time axis and the
// utilization strip under it.
const LAYOUT = { left: 64, axis: 34, stripGap: 6, strip: 44 };
// The fewest processor rows a zoom shows.
const MIN_ROWS_SHOWN = 4;
// Labels and the selection outline cost a canvas call each: drawn when the bars on screen are
// few enough to be read one by one anyway.
const MAX_LABELLED_BARS = 3000;
const LABEL_FONT = '11px system-ui, sans-serif';

// The bars drawn, in canvas pixels, for hit tests (and the browser tests), the busy profile the
// strip draws, and the time the last drawing took.
window.reschedBars = [];
window.reschedUtilization = [];
window.reschedDrawMs = 0;

// Everything else the last drawing drew (axes, labels, the strip, lines), as shapes that the SVG
// export (export.js) repeats: each drawn through one of the helpers below.
let drawnShapes = [];
function fillBox(context, box, fill, extra = {}) {
  context.fillStyle = fill;
  context.globalAlpha = extra.opacity || 1;
  context.fillRect(...box);
  context.globalAlpha = 1;
  drawnShapes.push({ box, fill, ...extra });
}
function strokeBox(context, box, stroke, width = 1, dash = []) {
  context.strokeStyle = stroke;
  context.lineWidth = width;
  context.setLineDash(dash);
  context.strokeRect(...box);
  context.setLineDash([]);
  context.lineWidth = 1;
  drawnShapes.push({ box, stroke, width, dash });
}
function strokeLine(context, line, stroke, width = 1, dash = []) {
  context.strokeStyle = stroke;
  context.lineWidth = width;
  context.setLineDash(dash);
  context.beginPath();
  context.moveTo(line[0], line[1]);
  context.lineTo(line[2], line[3]);
  context.stroke();
  context.setLineDash([]);
  context.lineWidth = 1;
  drawnShapes.push({ line, stroke, width, dash });
}
// Text at (x, y) of the given alignment ('left', 'right', 'center') and baseline ('alphabetic',
// 'middle'), turned by `rotate` radians around that point.
function fillLabel(context, text, at, fill, options = {}) {
  const { align = 'left', baseline = 'alphabetic', rotate = 0, maxWidth } = options;
  context.save();
  context.fillStyle = fill;
  context.font = LABEL_FONT;
  context.textAlign = align;
  context.textBaseline = baseline;
  context.translate(at[0], at[1]);
  context.rotate(rotate);
  if (maxWidth) context.fillText(text, 0, 0, maxWidth); else context.fillText(text, 0, 0);
  context.restore();
  drawnShapes.push({ text, at, fill, align, baseline, rotate });
}

function chartArea(canvas) {
  return { left: LAYOUT.left, top: 0, width: canvas.width - LAYOUT.left,
    height: canvas.height - LAYOUT.axis - LAYOUT.stripGap - LAYOUT.strip };
}

// The time window shown, {from, to} in seconds.
function timeWindow() { return state.view || fitWindow(); }

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

// The processor rows shown, {first, count}: all of them unless zoomed.
function rowWindow() {
  return state.rows || { first: 0, count: Math.max(1, live.meta.capacity) };
}

// A row window within the cluster, at least MIN_ROWS_SHOWN rows; null when it is all of them.
function clampedRows(first, count) {
  const capacity = Math.max(1, live.meta.capacity);
  const shown = Math.min(capacity, Math.max(Math.min(MIN_ROWS_SHOWN, capacity), Math.round(count)));
  if (shown === capacity) return null;
  return { first: Math.min(capacity - shown, Math.max(0, Math.round(first))), count: shown };
}

// Times as the page shows them: in UTC or in the browser's time zone (the picker by the chart).
const timeFormats = new Map();
function timeParts(t) {
  const zone = state.utc ? 'UTC' : undefined;
  if (!timeFormats.has(zone)) {
    timeFormats.set(zone, new Intl.DateTimeFormat('en-GB', { timeZone: zone, year: 'numeric',
      month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
      hourCycle: 'h23' }));
  }
  const parts = {};
  for (const part of timeFormats.get(zone).formatToParts(new Date(t * 1000))) {
    parts[part.type] = part.value;
  }
  return { date: `${parts.year}-${parts.month}-${parts.day}`,
    time: `${parts.hour}:${parts.minute}:${parts.second}` };
}
function formatTime(t) {
  if (!Number.isFinite(t)) return '-';
  const { date, time } = timeParts(t);
  return `${date} ${time}`;
}
// The zone's offset from UTC at `t`, in seconds (0 in UTC).
function zoneOffset(t) {
  return state.utc ? 0 : -new Date(t * 1000).getTimezoneOffset() * 60;
}
function zoneName() {
  if (state.utc) return 'UTC';
  const offset = zoneOffset(Date.now() / 1000) / 60;
  const hours = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offset) % 60).padStart(2, '0');
  return `local time (UTC${offset < 0 ? '-' : '+'}${hours}:${minutes})`;
}

// Each DAG's tasks in its own shade of the DAG colour, so that DAGs side by side stay apart.
const dagShades = new Map();
function dagShade(packed, dagId) {
  if (!dagShades.has(dagId)) dagShades.set(dagId, dagShades.size);
  const factor = [1, 0.7, 1.25, 0.85, 1.12, 0.6][dagShades.get(dagId) % 6];
  const channel = (shift) => Math.min(255, Math.round(((packed >>> shift) & 255) * factor));
  return ((255 << 24) | (channel(16) << 16) | (channel(8) << 8) | channel(0)) >>> 0;
}

// A packed pixel three quarters of the way to `background`: an item a filter leaves out.
function faded(packed, background) {
  const channel = (shift) => {
    const a = (packed >>> shift) & 255;
    const b = (background >>> shift) & 255;
    return Math.round(a + (b - a) * 0.75);
  };
  return ((255 << 24) | (channel(16) << 16) | (channel(8) << 8) | channel(0)) >>> 0;
}

// Black or white, whichever reads better over a packed pixel (WCAG's relative luminance).
function textOver(packed) {
  const linear = (shift) => {
    const c = ((packed >>> shift) & 255) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  // ImageData pixels are little-endian RGBA: red in the lowest byte.
  const luminance = 0.2126 * linear(0) + 0.7152 * linear(8) + 0.0722 * linear(16);
  return luminance > 0.18 ? '#000000' : '#ffffff';
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

// The busy processors over time, as [[from, busy], ...] steps, from the items the page holds
// (jobs, holds, DAG tasks): over the future it is the capacity less the schedule's free
// profile, and it follows the events as the chart does.
let busyCache = { version: -1, steps: [] };
function busySteps() {
  if (busyCache.version === state.itemsVersion) return busyCache.steps;
  const changes = new Map();
  const add = (t, k) => changes.set(t, (changes.get(t) || 0) + k);
  for (const item of state.items) {
    add(item.start, item.processors);
    add(item.end, -item.processors);
  }
  const steps = [];
  let busy = 0;
  for (const t of [...changes.keys()].sort((a, b) => a - b)) {
    busy += changes.get(t);
    if (steps.length > 0 && steps[steps.length - 1][1] === busy) continue;
    steps.push([t, busy]);
  }
  busyCache = { version: state.itemsVersion, steps };
  return steps;
}

function drawGantt() {
  const started = performance.now();
  const canvas = document.getElementById('gantt');
  const context = canvas.getContext('2d');
  const style = getComputedStyle(document.documentElement);
  context.clearRect(0, 0, canvas.width, canvas.height);
  const area = chartArea(canvas);
  const { from, to } = timeWindow();
  const rows = rowWindow();
  const x = (t) => area.left + ((t - from) / (to - from)) * area.width;
  const rowHeight = area.height / rows.count;
  const y = (id) => (id - rows.first) * rowHeight;
  const colours = packedColours(style, ['queued', 'running', 'ended', 'dag', 'reserved', 'fg', 'bg']);
  const filtering = filterActive();
  drawnShapes = [];
  const bars = bodyBars(context, area, { from, to, x, y, rows, rowHeight }, colours, filtering);
  drawGroups(context, style, area, rows, y);
  drawWhatIf(context, style, x, y, bars);
  if (bars.length <= MAX_LABELLED_BARS) drawLabels(context, bars, colours);
  if (state.detail) outline(context, style, bars, state.detail.id);
  if (state.hovered && state.hovered.kind === 'dag') drawEdges(context, style, bars, state.hovered);
  drawProcessorAxis(context, style, area, rows, y, rowHeight);
  drawTimeAxis(context, style, area, from, to, x);
  drawBusyStrip(context, style, area, from, to, x);
  // The now line in the text colour with a halo of the background's: seen over any bar.
  const now = x(liveNow());
  if (now >= area.left && now <= area.left + area.width) {
    fillBox(context, [now - 1, 0, 4, area.height], style.getPropertyValue('--now-halo'));
    fillBox(context, [now, 0, 2, area.height], style.getPropertyValue('--now'));
  }
  window.reschedBars = bars;
  window.reschedDrawMs = performance.now() - started;
  // Milliseconds from the navigation to the first complete drawing (bench/web_render_bench.cc).
  if (window.reschedFirstDrawnAt === undefined && bars.length > 0) {
    window.reschedFirstDrawnAt = performance.now();
  }
}

// The bars written into the chart's pixels, then put on the canvas at once: 10k jobs on 1,024
// processors are about 140k runs of processors, each thinner than a pixel, and a canvas call per
// run took 100 ms per drawing. A bar taller or wider than 3 pixels leaves its last row and
// column of pixels out, so that jobs side by side stay apart.
function bodyBars(context, area, view, colours, filtering) {
  const { from, to, x, y, rows } = view;
  const width = Math.max(1, Math.floor(area.width));
  const height = Math.max(1, Math.floor(area.height));
  const image = context.createImageData(width, height);
  const pixels = new Uint32Array(image.data.buffer);
  const bars = [];
  const last = rows.first + rows.count;
  for (const item of state.items) {
    if (item.end <= from || item.start >= to) continue;
    const left = Math.max(area.left, x(item.start));
    const right = Math.min(area.left + area.width, x(item.end));
    const x0 = Math.floor(left - area.left);
    let x1 = Math.min(width, Math.max(x0 + 1, Math.round(right - area.left)));
    if (x1 - x0 > 3) x1 -= 1;
    let colour = item.task ? dagShade(colours.dag, item.task.dagId) : colours[item.kind];
    if (filtering && !itemMatches(item)) colour = faded(colour, colours.bg);
    for (const [first, count] of item.runs) {
      const top = Math.max(first, rows.first);
      const bottom = Math.min(first + count, last);
      if (top >= bottom) continue;
      const full = (bottom - top) * view.rowHeight;
      const bar = { id: item.id, kind: item.kind, first: top, count: bottom - top, x: left,
        y: y(top), width: Math.max(1, right - left), height: Math.max(1, full > 3 ? full - 1 : full),
        colour };
      const y0 = Math.floor(bar.y);
      const y1 = Math.min(height, Math.max(y0 + 1, Math.floor(bar.y + bar.height)));
      for (let py = y0; py < y1; py += 1) {
        pixels.fill(colour, py * width + x0, py * width + x1);
        if (item.kind === 'reserved') { // hatched: a diagonal line every 6 pixels
          for (let px = x0 + ((6 - ((x0 + py) % 6)) % 6); px < x1; px += 6) {
            pixels[py * width + px] = colours.fg;
          }
        }
      }
      bars.push(bar);
    }
  }
  context.putImageData(image, area.left, area.top);
  return bars;
}

// An item's label on its bars wide and tall enough to hold some of it: id and name, cut to fit.
function drawLabels(context, bars, colours) {
  context.font = LABEL_FONT;
  const items = new Map(state.items.map((i) => [i.id, i]));
  const background = getComputedStyle(document.documentElement).getPropertyValue('--bg');
  for (const bar of bars) {
    if (bar.width < 28 || bar.height < 11 || bar.kind === 'whatif') continue;
    const item = items.get(bar.id);
    if (!item) continue;
    let text = item.label;
    const room = bar.width - 8;
    if (context.measureText(text).width > room) {
      while (text.length > 1 && context.measureText(`${text}…`).width > room) text = text.slice(0, -1);
      text = `${text}…`;
    }
    const middle = bar.y + bar.height / 2;
    if (bar.kind === 'reserved') { // over the hatching: on a patch of the background
      fillBox(context, [bar.x + 2, middle - 7, context.measureText(text).width + 4, 14], background);
    }
    fillLabel(context, text, [bar.x + 4, middle],
      textOver(bar.kind === 'reserved' ? colours.bg : bar.colour), { baseline: 'middle' });
  }
}

function outline(context, style, bars, id) {
  for (const bar of bars) {
    if (bar.id === id) strokeBox(context, [bar.x, bar.y, bar.width, bar.height], style.getPropertyValue('--fg'), 2);
  }
}

// A DAG task's precedences: a line from each predecessor's end to each successor's start.
function drawEdges(context, style, bars, item) {
  const dag = item.task.dagId;
  const barOf = (task) => bars.find((b) => b.id === `${dag}/${task}`);
  for (const [pred, succ] of (live.dags.get(dag) || { edges: [] }).edges) {
    if (pred !== item.task.task && succ !== item.task.task) continue;
    const a = barOf(pred);
    const b = barOf(succ);
    if (!a || !b) continue;
    strokeLine(context, [a.x + a.width, a.y + a.height / 2, b.x, b.y + b.height / 2],
      style.getPropertyValue('--fg'), 1.5);
  }
}

// The processor groups of a cluster of several speeds: a dashed line where one ends and the next
// begins, and each group's name and speed along the axis.
function drawGroups(context, style, area, rows, y) {
  const groups = live.meta.groups || [];
  const fg = style.getPropertyValue('--fg');
  let first = 0;
  groups.forEach((group, index) => {
    const end = first + (group.count || 0);
    const top = Math.max(first, rows.first);
    const bottom = Math.min(end, rows.first + rows.count);
    if (first > rows.first && first < rows.first + rows.count) {
      strokeLine(context, [0, y(first) - 0.5, area.left + area.width, y(first) - 0.5], fg, 1, [6, 4]);
    }
    if (bottom > top) { // along the axis, turned, centred on the part of the group shown
      fillLabel(context, `${group.name || `group ${index}`} ×${group.speed || 1}`,
        [12, (y(top) + y(bottom)) / 2], fg,
        { align: 'center', rotate: -Math.PI / 2, maxWidth: Math.max(10, y(bottom) - y(top) - 4) });
    }
    first = end;
  });
}

// Processor ids at a round step left of the chart.
function drawProcessorAxis(context, style, area, rows, y, rowHeight) {
  const steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000,
    100000, 200000, 500000, 1000000];
  const step = steps.find((s) => (rows.count / s) * 16 <= area.height) || steps[steps.length - 1];
  const muted = style.getPropertyValue('--muted');
  for (let p = Math.ceil(rows.first / step) * step; p < rows.first + rows.count; p += step) {
    const at = y(p) + Math.min(rowHeight, 12) / 2;
    fillBox(context, [area.left - 4, y(p), 4, 1], muted);
    fillLabel(context, String(p), [area.left - 6, Math.max(6, Math.min(area.height - 6, at))], muted,
      { align: 'right', baseline: 'middle' });
  }
  fillBox(context, [area.left - 1, 0, 1, area.height], muted);
}

// Ticks at a round step of the chosen zone under the chart: the time, and the date under the
// first tick and wherever the date changes.
function drawTimeAxis(context, style, area, from, to, x) {
  const steps = [1, 5, 10, 30, 60, 300, 600, 1800, 3600, 7200, 21600, 43200, 86400, 604800,
    2592000, 31536000];
  const step = steps.find((s) => (to - from) / s <= area.width / 110) || steps[steps.length - 1];
  const top = area.top + area.height;
  const offset = zoneOffset(from);
  const muted = style.getPropertyValue('--muted');
  fillBox(context, [area.left, top, area.width, 1], muted);
  let lastDate = '';
  for (let t = Math.ceil((from + offset) / step) * step - offset; t <= to; t += step) {
    const at = x(t);
    const { date, time } = timeParts(t);
    fillBox(context, [at, top, 1, 4], muted);
    const labelX = Math.min(at + 2, area.left + area.width - 58);
    fillLabel(context, step >= 86400 ? date : (step >= 60 ? time.slice(0, 5) : time),
      [labelX, top + 14], muted);
    if (step < 86400 && date !== lastDate) fillLabel(context, date, [labelX, top + 27], muted);
    lastDate = date;
  }
  fillLabel(context, state.utc ? 'UTC' : 'local', [4, top + 14], muted);
}

// The cluster's busy processors over the time shown, as a share of its capacity.
function drawBusyStrip(context, style, area, from, to, x) {
  const capacity = Math.max(1, live.meta.capacity);
  const top = area.height + LAYOUT.axis + LAYOUT.stripGap;
  const height = LAYOUT.strip;
  const steps = busySteps();
  window.reschedUtilization = steps;
  fillBox(context, [area.left, top, area.width, height], style.getPropertyValue('--line'));
  const fill = style.getPropertyValue('--running');
  let peak = 0;
  steps.forEach(([t, busy], i) => {
    const end = i + 1 < steps.length ? steps[i + 1][0] : Infinity;
    if (end <= from || t >= to || busy <= 0) return;
    peak = Math.max(peak, busy);
    const left = x(Math.max(t, from));
    const right = x(Math.min(end, to));
    const h = (Math.min(busy, capacity) / capacity) * height;
    fillBox(context, [left, top + height - h, Math.max(1, right - left), h], fill);
  });
  const muted = style.getPropertyValue('--muted');
  fillLabel(context, 'busy', [4, top + 14], muted);
  fillLabel(context, `max ${Math.round((peak / capacity) * 100)}%`, [4, top + 28], muted);
}

// The what-if items, dashed, on the lowest processors free at their times (of the schedule's
// bars and the what-if items before them), else over the lowest ones: the API's dry runs give
// times and widths, not processor ids.
function drawWhatIf(context, style, x, y, bars) {
  if (state.whatIf.length === 0) return;
  const capacity = live.meta.capacity;
  const busy = Array.from({ length: capacity }, () => []);
  const lo = state.whatIf.reduce((m, i) => Math.min(m, i.start), Infinity);
  const hi = state.whatIf.reduce((m, i) => Math.max(m, i.end), -Infinity);
  for (const item of state.items) {
    if (item.end <= lo || item.start >= hi) continue;
    for (const p of item.ids) if (p < capacity) busy[p].push([item.start, item.end]);
  }
  const freeOver = (p, start, end) => busy[p].every(([s, e]) => e <= start || s >= end);
  const colour = style.getPropertyValue('--whatif');
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
      y: y(first), width: Math.max(1, x(item.end) - x(item.start)),
      height: item.processors * (y(1) - y(0)) };
    fillBox(context, [bar.x, bar.y, bar.width, bar.height], colour, { opacity: 0.25 });
    strokeBox(context, [bar.x, bar.y, bar.width, bar.height], colour, 1, [4, 3]);
    bars.push(bar);
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

// Zoom time around t by `factor` (< 1 zooms in), processors around row `at` by `factor`; pan
// time by `shift` seconds and processors by `rowShift` rows.
function zoomTime(factor, t) {
  const { from, to } = timeWindow();
  const at = t === undefined ? (from + to) / 2 : t;
  state.view = { from: at - (at - from) * factor, to: at + (to - at) * factor };
  drawGantt();
}
function zoomRows(factor, at) {
  const { first, count } = rowWindow();
  const centre = at === undefined ? first + count / 2 : at;
  state.rows = clampedRows(centre - (centre - first) * factor, count * factor);
  drawGantt();
}
function pan(shift, rowShift = 0) {
  const { from, to } = timeWindow();
  state.view = { from: from + shift, to: to + shift };
  if (rowShift !== 0) {
    const { first, count } = rowWindow();
    state.rows = clampedRows(first + rowShift, count);
  }
  drawGantt();
}
function fitChart() {
  state.view = null;
  state.rows = null;
  drawGantt();
}

function setUpChart() {
  const canvas = document.getElementById('gantt');
  const pointAt = (clientX, clientY) => {
    const box = canvas.getBoundingClientRect();
    const area = chartArea(canvas);
    const px = ((clientX - box.left) * canvas.width) / box.width;
    const py = ((clientY - box.top) * canvas.height) / box.height;
    const { from, to } = timeWindow();
    const { first, count } = rowWindow();
    return { t: from + ((px - area.left) / area.width) * (to - from),
      row: first + (py / area.height) * count };
  };
  // The wheel zooms time around the pointer; with Shift, the processors around it.
  canvas.addEventListener('wheel', (e) => {
    if (!live.meta) return;
    e.preventDefault();
    const at = pointAt(e.clientX, e.clientY);
    const delta = e.deltaY || e.deltaX;
    if (e.shiftKey) zoomRows(delta < 0 ? 0.8 : 1.25, at.row);
    else zoomTime(delta < 0 ? 0.8 : 1.25, at.t);
  }, { passive: false });
  // A drag pans both axes (the processors when zoomed on them); a click that did not drag
  // opens the details of the bar under it.
  let drag = null;
  canvas.addEventListener('mousedown', (e) => {
    if (!live.meta) return;
    drag = { x: e.clientX, y: e.clientY, view: timeWindow(), rows: rowWindow(), moved: false };
  });
  window.addEventListener('mouseup', () => { setTimeout(() => { drag = null; }); });
  canvas.addEventListener('mousemove', (e) => {
    if (!live.meta) return;
    if (drag && e.buttons === 1 &&
        (drag.moved || Math.hypot(e.clientX - drag.x, e.clientY - drag.y) > 2)) {
      const box = canvas.getBoundingClientRect();
      const area = chartArea(canvas);
      const shift = (((e.clientX - drag.x) * canvas.width) / box.width / area.width) *
        (drag.view.to - drag.view.from);
      const rowShift = (((e.clientY - drag.y) * canvas.height) / box.height / area.height) *
        drag.rows.count;
      state.view = { from: drag.view.from - shift, to: drag.view.to - shift };
      if (state.rows) state.rows = clampedRows(drag.rows.first - rowShift, drag.rows.count);
      drag.moved = true;
      drawGantt();
      return;
    }
    const item = itemAt(e.clientX, e.clientY);
    canvas.title = item ? `${item.label} (${item.kind})` : '';
    if (item !== state.hovered) {
      state.hovered = item;
      drawGantt();
    }
  });
  canvas.addEventListener('click', (e) => {
    if (!live.meta || (drag && drag.moved)) return;
    showDetail(itemAt(e.clientX, e.clientY));
    drawGantt();
  });
  canvas.addEventListener('dblclick', () => fitChart());
  canvas.addEventListener('keydown', (e) => {
    if (!live.meta) return;
    const { from, to } = timeWindow();
    const { count } = rowWindow();
    const moves = { '+': () => zoomTime(0.8), '=': () => zoomTime(0.8), '-': () => zoomTime(1.25),
      ArrowLeft: () => pan(-(to - from) / 10), ArrowRight: () => pan((to - from) / 10),
      ArrowUp: () => pan(0, -Math.max(1, Math.round(count / 10))),
      ArrowDown: () => pan(0, Math.max(1, Math.round(count / 10))),
      PageUp: () => zoomRows(0.5), PageDown: () => zoomRows(2), 0: () => fitChart() };
    if (moves[e.key]) {
      e.preventDefault();
      moves[e.key]();
    }
  });
  // The same moves as buttons, for a pointer without a wheel and for screen readers.
  const buttons = { 'zoom-time-in': () => zoomTime(0.5), 'zoom-time-out': () => zoomTime(2),
    'zoom-rows-in': () => zoomRows(0.5), 'zoom-rows-out': () => zoomRows(2), 'zoom-fit': fitChart };
  for (const [id, action] of Object.entries(buttons)) {
    document.getElementById(id).addEventListener('click', () => { if (live.meta) action(); });
  }
  document.getElementById('time-zone').addEventListener('change', (e) => {
    state.utc = e.target.value === 'utc';
    redrawSoon();
    fillTables();
    if (state.detail) showDetail(state.detail);
  });
}
