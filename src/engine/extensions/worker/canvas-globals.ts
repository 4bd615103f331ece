// The canvas globals of a background page and a service worker (runs inside the extension's
// realm): Path2D, ImageData, CanvasRenderingContext2D and OffscreenCanvas, and the 2D context of a
// page's <canvas> element. The drawing is Skia's on the worker's Node side (canvas-kit.ts), loaded
// the first time one of these is touched, so an extension that never draws pays nothing.
import { canvasDimension, canvasMimeType, type CanvasKit, type CanvasSurface } from './canvas-kit.js';

type Scope = Record<string, unknown>;

/** Defines the canvas globals on `scope`, each loading the kit on first use. */
export function installCanvasGlobals(scope: Scope, kit: () => CanvasKit): void {
  const OffscreenCanvas = offscreenCanvasClass(kit, scope);
  const lazy: Record<string, () => unknown> = {
    Path2D: () => kit().Path2D,
    ImageData: () => kit().ImageData,
    CanvasRenderingContext2D: () => kit().CanvasRenderingContext2D,
    // One context class serves both (Chromium's are two): `instanceof` holds for either name.
    OffscreenCanvasRenderingContext2D: () => kit().CanvasRenderingContext2D,
    OffscreenCanvas: () => OffscreenCanvas,
  };
  for (const [name, value] of Object.entries(lazy)) {
    Object.defineProperty(scope, name, {
      get: () => {
        const settled = value();
        Object.defineProperty(scope, name, { value: settled, writable: true, configurable: true, enumerable: false });
        return settled;
      },
      set: (replacement: unknown) => Object.defineProperty(scope, name, { value: replacement, writable: true, configurable: true, enumerable: false }),
      configurable: true,
      enumerable: false,
    });
  }
}

/** OffscreenCanvas (windows and workers): a surface with no element, its pixels as a Blob. */
function offscreenCanvasClass(kit: () => CanvasKit, scope: Scope): new (width: unknown, height: unknown) => object {
  const surfaces = new WeakMap<object, CanvasSurface>();
  const surfaceOf = (canvas: object): CanvasSurface => {
    const surface = surfaces.get(canvas);
    if (!surface) throw new TypeError('Illegal invocation');
    return surface;
  };
  return class OffscreenCanvas {
    constructor(width: unknown, height: unknown) {
      if (arguments.length < 2) throw new TypeError(`Failed to construct 'OffscreenCanvas': 2 arguments required, but only ${arguments.length} present.`);
      surfaces.set(this, kit().createCanvas(canvasDimension(width, 0), canvasDimension(height, 0)));
    }
    get width(): number {
      return surfaceOf(this).width;
    }
    set width(value: unknown) {
      surfaceOf(this).width = canvasDimension(value, 0);
    }
    get height(): number {
      return surfaceOf(this).height;
    }
    set height(value: unknown) {
      surfaceOf(this).height = canvasDimension(value, 0);
    }
    getContext(type: unknown, options?: unknown): object | null {
      return String(type) === '2d' ? surfaceOf(this).getContext('2d', options) : null;
    }
    convertToBlob(options?: { type?: unknown; quality?: unknown }): Promise<unknown> {
      const type = canvasMimeType(options?.type);
      const quality = typeof options?.quality === 'number' ? Math.round(options.quality * 100) : undefined;
      const bytes = surfaceOf(this).toBuffer(type, quality);
      const Blob = scope.Blob as new (parts: unknown[], options: { type: string }) => unknown;
      return Promise.resolve(new Blob([bytes], { type }));
    }
    get [Symbol.toStringTag](): string {
      return 'OffscreenCanvas';
    }
  };
}

/** A page's <canvas> elements (linkedom's HTMLCanvasElement) backed by a real surface each. */
export function drawableCanvasElements(prototype: object, kit: () => CanvasKit, Blob: () => unknown): void {
  const surfaces = new WeakMap<object, CanvasSurface>();
  type Element = { getAttribute(name: string): string | null; setAttribute(name: string, value: string): void };
  const surfaceOf = (element: Element): CanvasSurface => {
    let surface = surfaces.get(element);
    if (!surface) {
      surface = kit().createCanvas(canvasDimension(element.getAttribute('width') ?? 300, 300), canvasDimension(element.getAttribute('height') ?? 150, 150));
      surfaces.set(element, surface);
    }
    return surface;
  };
  const dimension = (name: 'width' | 'height', fallback: number): PropertyDescriptor => ({
    get(this: Element) {
      return surfaceOf(this)[name];
    },
    set(this: Element, value: unknown) {
      const size = canvasDimension(value, fallback);
      this.setAttribute(name, String(size));
      // Setting either dimension clears the canvas and resets its context, as in a browser.
      surfaceOf(this)[name] = size;
    },
    configurable: true,
  });
  Object.defineProperties(prototype, {
    width: dimension('width', 300),
    height: dimension('height', 150),
    getContext: {
      value(this: Element, type: unknown, options?: unknown) {
        return String(type) === '2d' ? surfaceOf(this).getContext('2d', options) : null;
      },
      writable: true,
      configurable: true,
    },
    toDataURL: {
      value(this: Element, type?: unknown, quality?: unknown) {
        const surface = surfaceOf(this);
        // A canvas with no pixels gives "data:," in every browser.
        if (surface.width === 0 || surface.height === 0) return 'data:,';
        return surface.toDataURL(canvasMimeType(type), typeof quality === 'number' ? quality : undefined);
      },
      writable: true,
      configurable: true,
    },
    toBlob: {
      value(this: Element, callback: unknown, type?: unknown, quality?: unknown) {
        if (typeof callback !== 'function') throw new TypeError("Failed to execute 'toBlob' on 'HTMLCanvasElement': The callback provided as parameter 1 is not a function.");
        const mime = canvasMimeType(type);
        const surface = surfaceOf(this);
        const BlobClass = Blob() as new (parts: unknown[], options: { type: string }) => unknown;
        const blob = surface.width === 0 || surface.height === 0 ? null : new BlobClass([surface.toBuffer(mime, typeof quality === 'number' ? Math.round(quality * 100) : undefined)], { type: mime });
        // Asynchronous, as in a browser.
        queueMicrotask(() => (callback as (blob: unknown) => void)(blob));
      },
      writable: true,
      configurable: true,
    },
  });
}
