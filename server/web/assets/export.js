// Exports: the chart as PNG (the canvas's own pixels) or as SVG (what it drew, as vector
// elements built through the DOM and written by the browser's XMLSerializer), and the jobs the
// filters keep as CSV (the server's jobs.csv, which applies the same filters).
'use strict';

function download(blob, name) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

// A packed ImageData pixel (little-endian RGBA) as a CSS colour.
function cssColour(packed) {
  return `rgb(${packed & 255}, ${(packed >>> 8) & 255}, ${(packed >>> 16) & 255})`;
}

// The chart as an SVG document: its bars (a hold hatched, as drawn), then every other shape of
// the last drawing in the order it was drawn.
function chartSvg() {
  const canvas = document.getElementById('gantt');
  const style = getComputedStyle(document.documentElement);
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  const add = (name, attributes, parent = svg) => {
    const element = document.createElementNS(ns, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
    parent.append(element);
    return element;
  };
  svg.setAttribute('xmlns', ns);
  svg.setAttribute('width', canvas.width);
  svg.setAttribute('height', canvas.height);
  svg.setAttribute('viewBox', `0 0 ${canvas.width} ${canvas.height}`);
  add('title', {}).textContent = `resched: cluster ${state.selected}`;
  const hatch = add('pattern', { id: 'hold', patternUnits: 'userSpaceOnUse', width: 6, height: 6,
    patternTransform: 'rotate(45)' }, add('defs', {}));
  add('rect', { width: 6, height: 6, fill: style.getPropertyValue('--reserved') }, hatch);
  add('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: style.getPropertyValue('--fg') }, hatch);
  add('rect', { width: canvas.width, height: canvas.height, fill: style.getPropertyValue('--bg') });
  const items = new Map(state.items.map((i) => [i.id, i]));
  for (const bar of window.reschedBars) {
    if (bar.kind === 'whatif') continue; // drawn again below with the other shapes
    const rect = add('rect', { x: bar.x, y: bar.y, width: bar.width, height: bar.height,
      fill: bar.kind === 'reserved' ? 'url(#hold)' : cssColour(bar.colour) });
    const item = items.get(bar.id);
    add('title', {}, rect).textContent = item ? `${item.label} (${item.kind})` : bar.id;
  }
  const anchors = { left: 'start', right: 'end', center: 'middle' };
  for (const shape of drawnShapes) {
    if (shape.text !== undefined) {
      const [x, y] = shape.at;
      const text = add('text', { x, y, fill: shape.fill, 'font-size': 11,
        'font-family': 'system-ui, sans-serif', 'text-anchor': anchors[shape.align] || 'start',
        'dominant-baseline': shape.baseline === 'middle' ? 'central' : 'auto' });
      if (shape.rotate) text.setAttribute('transform', `rotate(${(shape.rotate * 180) / Math.PI} ${x} ${y})`);
      text.textContent = shape.text;
    } else if (shape.line) {
      const [x1, y1, x2, y2] = shape.line;
      add('line', { x1, y1, x2, y2, stroke: shape.stroke, 'stroke-width': shape.width,
        'stroke-dasharray': shape.dash.join(' ') || 'none' });
    } else {
      const [x, y, width, height] = shape.box;
      add('rect', shape.fill ? { x, y, width, height, fill: shape.fill, 'fill-opacity': shape.opacity || 1 }
        : { x, y, width, height, fill: 'none', stroke: shape.stroke, 'stroke-width': shape.width,
          'stroke-dasharray': shape.dash.join(' ') || 'none' });
    }
  }
  return new XMLSerializer().serializeToString(svg);
}
window.reschedChartSvg = chartSvg;

// The job states each kind of bar stands for, as jobs.csv's `states` takes them.
const STATES_OF_KIND = { queued: ['QUEUED'], running: ['RUNNING'],
  ended: ['FINISHED', 'FAILED', 'CANCELLED'] };

// jobs.csv's address for the filters the page applies; null when they keep no job (a filter on
// holds or DAG tasks).
function jobsCsvPath() {
  const query = new URLSearchParams();
  if (state.stateFilter) {
    if (!STATES_OF_KIND[state.stateFilter]) return null;
    for (const s of STATES_OF_KIND[state.stateFilter]) query.append('states', s);
  }
  if (state.ownerFilter) query.set('owner', state.ownerFilter);
  if (state.find) query.set('find', state.find);
  const from = live.pastFrom ? live.pastFrom : '';
  if (from) query.set('ended_after', from);
  return `/api/v1/clusters/${encodeURIComponent(state.selected)}/jobs.csv?${query}`;
}

async function exportCsv() {
  const path = jobsCsvPath();
  if (path === null) throw new Error('the filters keep no jobs: nothing to export');
  const headers = token() ? { Authorization: `Bearer ${token()}` } : {};
  const response = await fetch(path, { cache: 'no-store', headers });
  if (!response.ok) {
    const error = await response.json();
    throw new Error(`${error.code}: ${error.message}`);
  }
  download(await response.blob(), `${state.selected}-jobs.csv`);
}

function setUpExports() {
  const said = (text) => { document.getElementById('export-result').textContent = text; };
  document.getElementById('export-png').addEventListener('click', () => {
    if (!live.meta) return;
    document.getElementById('gantt').toBlob((blob) => download(blob, `${state.selected}-gantt.png`),
      'image/png');
  });
  document.getElementById('export-svg').addEventListener('click', () => {
    if (!live.meta) return;
    download(new Blob([chartSvg()], { type: 'image/svg+xml' }), `${state.selected}-gantt.svg`);
  });
  document.getElementById('export-csv').addEventListener('click', () => {
    if (!live.meta) return;
    said('');
    exportCsv().catch((e) => said(e.message));
  });
}
