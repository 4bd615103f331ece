// FileReader (runs inside the extension's realm), which browsers expose to pages and workers alike
// and Node does not: uBlock Origin reads its cached resources with it. Over Blob's own methods:
// readAsText, readAsArrayBuffer, readAsDataURL, readAsBinaryString, abort; the states, `result`,
// `error`, and loadstart / progress / load / error / abort / loadend through `on…` and addEventListener.

import { fireWithHandler } from './handler-attributes.js';

type Parts = { Event: new (type: string) => Event; EventTarget: new () => EventTarget; onError: (error: unknown, where: string) => void };

export function createFileReader(parts: Parts): unknown {
  class FileReader extends parts.EventTarget {
    static readonly EMPTY = 0;
    static readonly LOADING = 1;
    static readonly DONE = 2;
    readyState = 0;
    result: string | ArrayBuffer | null = null;
    error: DOMException | null = null;
    onloadstart: ((event: Event) => unknown) | null = null;
    onprogress: ((event: Event) => unknown) | null = null;
    onload: ((event: Event) => unknown) | null = null;
    onerror: ((event: Event) => unknown) | null = null;
    onabort: ((event: Event) => unknown) | null = null;
    onloadend: ((event: Event) => unknown) | null = null;
    #reading = 0;

    readAsText(blob: Blob, encoding?: string): void {
      this.#read(blob, async (bytes) => new TextDecoder(encoding || 'utf-8').decode(bytes));
    }

    readAsArrayBuffer(blob: Blob): void {
      this.#read(blob, async (bytes) => bytes);
    }

    readAsDataURL(blob: Blob): void {
      this.#read(blob, async (bytes) => `data:${blob.type || 'application/octet-stream'};base64,${base64(bytes)}`);
    }

    readAsBinaryString(blob: Blob): void {
      this.#read(blob, async (bytes) => latin1(bytes));
    }

    abort(): void {
      if (this.readyState !== 1) return;
      this.#reading++;
      this.readyState = 2;
      this.result = null;
      this.#fire('abort');
      this.#fire('loadend');
    }

    #read(blob: Blob, convert: (bytes: ArrayBuffer) => Promise<string | ArrayBuffer>): void {
      if (this.readyState === 1) throw new DOMException("Failed to execute 'read' on 'FileReader': The object is already busy reading Blobs.", 'InvalidStateError');
      if (!(blob instanceof Blob)) throw new TypeError("Failed to execute 'readAsArrayBuffer' on 'FileReader': parameter 1 is not of type 'Blob'.");
      const reading = ++this.#reading;
      this.readyState = 1;
      this.result = null;
      this.error = null;
      queueMicrotask(() => this.#fire('loadstart'));
      blob
        .arrayBuffer()
        // Blob is Node's: its buffer is copied into this realm (`result instanceof ArrayBuffer`).
        .then((bytes) => convert(new Uint8Array(bytes).slice().buffer))
        .then(
          (result) => {
            if (reading !== this.#reading) return;
            this.#fire('progress');
            this.readyState = 2;
            this.result = result;
            this.#fire('load');
            this.#fire('loadend');
          },
          () => {
            if (reading !== this.#reading) return;
            this.readyState = 2;
            this.error = new DOMException('A requested file or directory could not be found at the time an operation was processed.', 'NotReadableError');
            this.#fire('error');
            this.#fire('loadend');
          },
        );
    }

    #fire(type: string): void {
      fireWithHandler(this, type, parts.Event, parts.onError, 'a FileReader');
    }
  }
  return FileReader;
}

function latin1(bytes: ArrayBuffer): string {
  const view = new Uint8Array(bytes);
  let out = '';
  for (let at = 0; at < view.length; at += 0x8000) out += String.fromCharCode(...view.subarray(at, at + 0x8000));
  return out;
}

function base64(bytes: ArrayBuffer): string {
  return btoa(latin1(bytes));
}
