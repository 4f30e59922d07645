// Small pieces every view uses: cells, tables, stats, ages.
import { h } from '/assets/vendor/preact.mjs';

export const fmtAge = (s) => (s === null || s === undefined ? '–' : s < 120 ? `${Math.round(s)} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`);
export const cell = (v) => h('td', null, v === null || v === undefined || v === '' ? '–' : String(v));
export const table = (cls, head, rows) =>
  h('table', { class: cls }, h('thead', null, h('tr', null, head.map((x) => h('th', null, x)))), h('tbody', null, rows));
export const stat = (label, value, testid) =>
  h('div', { class: 'stat' }, h('dt', null, label), h('dd', testid ? { 'data-testid': testid } : null, value === null || value === undefined ? '–' : String(value)));
