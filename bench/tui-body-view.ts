// Opening a large body in the detail pane: the time to make the Response tab's rows (preview, then
// wrapped to the pane) for bodies of --max-body-size in the TUI (16 MiB): logs, HTML, a one-line
// bundle, minified JSON. Side by side, what it cost before: every line made, then 500 kept (which
// froze the TUI for over a second on a 10 MB log of short lines), and no bound on a line's length
// (a one-line bundle wrapped to ~115,000 rows).
//   node --import tsx bench/tui-body-view.ts
import { bodyPreviewLines } from '../src/ui/detail/body-preview.js';
import { line, wrapLines } from '../src/ui/detail/styled-line.js';

const MIB = 1024 * 1024;
const make = (unit: string) => Buffer.from(unit.repeat(Math.ceil((16 * MIB) / unit.length))).subarray(0, 16 * MIB);
const bodies = [
  { label: 'log, short lines', type: 'text/plain', bytes: make('ok\n') },
  { label: 'log, 45-char lines', type: 'text/plain', bytes: make('2026-11-26T10:00:00Z GET /api/items 200 3ms\n') },
  { label: 'page (text/html)', type: 'text/html', bytes: make('<div class="row"><span>item</span></div>\n') },
  { label: 'bundle, one line', type: 'application/javascript', bytes: make('var a=1;') },
];
const json = Buffer.from(JSON.stringify({ items: Array.from({ length: 300_000 }, (_, id) => ({ id, name: `item ${id}`, tags: ['a', 'b'] })) }));

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
function time(run: () => unknown, rounds = 5): number {
  const ms: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    run();
    ms.push(performance.now() - started);
  }
  return median(ms);
}

for (const body of bodies) {
  // The pane wraps what the preview gives to its width (148 columns on a 150-column terminal).
  const preview = time(() => wrapLines(bodyPreviewLines({ bytes: body.bytes, contentType: body.type, complete: true }), 148));
  const rows = wrapLines(bodyPreviewLines({ bytes: body.bytes, contentType: body.type, complete: true }), 148).length;
  // What the preview did before: every line a string and a styled line (numbered for markup), then the first 500 kept.
  const text = body.bytes.toString('utf8');
  const whole = time(() => {
    const textLines = text.split(/\r?\n/);
    const width = String(textLines.length).length;
    const lines = body.type === 'text/html' ? textLines.map((textLine, index) => line({ text: `${String(index + 1).padStart(width)} │ `, dim: true }, textLine)) : textLines.map((textLine) => line(textLine));
    lines.length = Math.min(lines.length, 500);
    return wrapLines(lines, 148);
  });
  const textLines = text.split(/\r?\n/);
  const rowsBefore = wrapLines(textLines.slice(0, 500).map((textLine) => line(textLine)), 148).length;
  process.stdout.write(`${body.label.padEnd(18)} ${(body.bytes.length / MIB).toFixed(1)} MiB  Response tab ${preview.toFixed(0).padStart(5)} ms, ${String(rows).padStart(6)} rows   before ${whole.toFixed(0).padStart(5)} ms, ${String(rowsBefore).padStart(6)} rows   ratio ${(preview / whole).toFixed(2)}\n`);
}
// JSON is parsed whole either way (then folded): its time, for scale.
const jsonMs = time(() => bodyPreviewLines({ bytes: json, contentType: 'application/json', complete: true }));
process.stdout.write(`${'JSON, one line'.padEnd(18)} ${(json.length / MIB).toFixed(1)} MiB  Response tab lines ${jsonMs.toFixed(0).padStart(5)} ms   (parsed whole, then folded: unchanged)\n`);
