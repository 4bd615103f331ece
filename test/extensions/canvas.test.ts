// A 2D canvas an extension can draw on, as in a browser with no GPU (software Skia): a background
// page's <canvas> element and OffscreenCanvas, Path2D and ImageData in a page and a service worker.
// Extensions draw their toolbar icon this way (Proxy Switcher at start; it stopped loading while a
// page's canvas had no 2D context).
import { afterEach, describe, expect, it } from 'vitest';
import { openRuleFolder, type RuleFolder } from '../rules/rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

const reportOf = async (source: string) =>
  JSON.parse(((await folder!.waitForEntry((e) => e.kind === 'log' && e.source === source && e.message.startsWith('{'), { since: 0, timeoutMs: 15_000 })) as { message: string }).message) as Record<string, unknown>;

// What each background draws and reports: the pixels a browser's software canvas gives for
// solid fills (exact: no edge is sampled), and what the canvas objects are.
const DRAWING = `
function draw(ctx, width) {
  ctx.fillStyle = '#fd0e1c';
  ctx.fillRect(0, 0, width, 10);
  ctx.fillStyle = '#2124fc';
  ctx.fill(new Path2D('M0,20 h20 v20 h-20 z'));
  const red = Array.from(ctx.getImageData(2, 2, 1, 1).data);
  const blue = Array.from(ctx.getImageData(10, 30, 1, 1).data);
  const empty = Array.from(ctx.getImageData(40, 40, 1, 1).data);
  const image = ctx.getImageData(0, 0, 4, 4);
  return { red, blue, empty, imageData: image instanceof ImageData, length: image.data.length, context: ctx instanceof CanvasRenderingContext2D };
}`;

describe('an extension draws on a 2D canvas', () => {
  it("a background page's <canvas> has a 2D context: fills, paths, getImageData and a PNG data URL; WebGL is not available", async () => {
    folder = await openRuleFolder({
      files: {
        'Painter/manifest.json': JSON.stringify({ manifest_version: 2, name: 'Painter', version: '1', background: { scripts: ['page.js'] } }),
        'Painter/page.js': `${DRAWING}
const canvas = document.createElement('canvas');
const defaults = [canvas.width, canvas.height];
canvas.width = 48; canvas.height = 48;
const ctx = canvas.getContext('2d');
const drawn = draw(ctx, 48);
const url = canvas.toDataURL();
canvas.width = 48; // setting a dimension clears the canvas
const cleared = Array.from(ctx.getImageData(2, 2, 1, 1).data);
canvas.toBlob((blob) => console.log(JSON.stringify({ ...drawn, defaults, sameContext: canvas.getContext('2d') === ctx, png: url.startsWith('data:image/png;base64,iVBORw0KGgo'), cleared, webgl: canvas.getContext('webgl'), blob: blob.type, blobBytes: blob.size > 0 })));`,
      },
    });
    expect(await reportOf('Painter')).toEqual({
      red: [253, 14, 28, 255],
      blue: [33, 36, 252, 255],
      empty: [0, 0, 0, 0],
      imageData: true,
      length: 64,
      context: true,
      defaults: [300, 150],
      sameContext: true,
      png: true,
      cleared: [0, 0, 0, 0],
      webgl: null,
      blob: 'image/png',
      blobBytes: true,
    });
    expect(folder.logEntries('Painter').filter((e) => e.level === 'error')).toEqual([]);
  });

  it('a service worker draws on an OffscreenCanvas and gets its pixels as a PNG Blob', async () => {
    folder = await openRuleFolder({
      files: {
        'Offscreen/manifest.json': JSON.stringify({ manifest_version: 3, name: 'Offscreen', version: '1', background: { service_worker: 'sw.js' } }),
        'Offscreen/sw.js': `${DRAWING}
const canvas = new OffscreenCanvas(48, 48);
const drawn = draw(canvas.getContext('2d'), 48);
let missing;
try { new OffscreenCanvas(1); } catch (error) { missing = error.constructor.name; }
canvas.convertToBlob().then((blob) => console.log(JSON.stringify({ ...drawn, size: [canvas.width, canvas.height], blob: blob.type, missing, document: typeof document })));`,
      },
    });
    expect(await reportOf('Offscreen')).toEqual({
      red: [253, 14, 28, 255],
      blue: [33, 36, 252, 255],
      empty: [0, 0, 0, 0],
      imageData: true,
      length: 64,
      context: true,
      size: [48, 48],
      blob: 'image/png',
      missing: 'TypeError',
      document: 'undefined',
    });
  });
});
