/** Compact text tables for the bench output. */
import type { Metric, SectionResult } from './types';

export function fmt(value: number | undefined, unit: Metric['unit']): string {
  if (value === undefined || Number.isNaN(value)) return '—';
  switch (unit) {
    case 'ms':
      return value < 10 ? `${value.toFixed(2)} ms` : value < 100 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`;
    case 's':
      return `${value.toFixed(2)} s`;
    case 'MiB':
      return `${value.toFixed(1)} MiB`;
    case 'x':
      return `${value.toFixed(1)}×`;
    case 'ratio':
      return value.toFixed(3);
    default:
      return Math.round(value).toLocaleString('en-US');
  }
}

export function verdict(m: Metric): string {
  if (!m.target || m.value === undefined) return '';
  const ok = m.target.op === '<=' ? m.value <= m.target.value : m.value >= m.target.value;
  return ok ? 'met' : 'MISSED';
}

/** Align columns; the first row is the header. */
export function table(rows: string[][], indent = '  '): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => indent + r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd()).join('\n');
}

export function renderSection(name: string, description: string, r: SectionResult): string {
  const out: string[] = [`-- ${name}: ${description}`];
  if (r.metrics.length > 0) {
    const rows = [['metric', 'value', 'target', '', 'detail']];
    for (const m of r.metrics) {
      rows.push([m.name, fmt(m.value, m.unit), m.target ? `${m.target.op === '<=' ? '≤' : '≥'} ${fmt(m.target.value, m.unit)}` : '', verdict(m), m.detail ?? '']);
    }
    out.push(table(rows));
  }
  if (r.table && r.table.length > 1) out.push('', table(r.table));
  for (const n of r.notes ?? []) out.push(`  note: ${n}`);
  return out.join('\n');
}
