// A 2D canvas for an extension's pages and service workers: Skia, through @napi-rs/canvas, loaded
// on the worker's Node side the first time the extension draws. Extensions draw their toolbar icon
// on a canvas and hand the pixels to browserAction.setIcon({imageData}) (Proxy Switcher does so at
// start, and stopped loading while a page's canvas had no 2D context). A browser with no GPU still
// has a software 2D canvas, so wrtui gives a real one: pixels, paths, text and PNG export as
// Chromium's software path draws them (anti-aliasing may differ by a value or two per pixel).
// WebGL stays unavailable (getContext('webgl') is null, as in a browser without GPU access).

/** What the extension's realm is given of the canvas library (its classes are this realm's). */
export interface CanvasKit {
  createCanvas(width: number, height: number): CanvasSurface;
  Path2D: new (path?: unknown) => object;
  ImageData: new (...args: unknown[]) => object;
  /** The 2D context's class, for `instanceof` and prototype patching as in a browser. */
  CanvasRenderingContext2D: new () => object;
}

export interface CanvasSurface {
  width: number;
  height: number;
  getContext(type: '2d', options?: unknown): object | null;
  toDataURL(type?: string, quality?: number): string;
  toBuffer(type: string, quality?: number): Uint8Array;
}

/** The canvas size a browser uses for a value it cannot take (negative, not a number): the default. */
export function canvasDimension(value: unknown, fallback: number): number {
  const number = Math.trunc(Number(value));
  return Number.isFinite(number) && number >= 0 && number <= 0x7fffffff ? number : fallback;
}

/** The image formats toDataURL/toBlob encode; anything else is PNG, as in a browser. */
export function canvasMimeType(type: unknown): 'image/png' | 'image/jpeg' | 'image/webp' {
  const wanted = String(type ?? '').toLowerCase();
  return wanted === 'image/jpeg' || wanted === 'image/webp' ? wanted : 'image/png';
}
