// Which new request is a resend (r, e) of which: the resend reaches the proxy like any client's
// request, so while it is under way the next request of its method and URL is taken to be it.
import type { RequestRecord } from './request-record.js';

interface Expected {
  method: string;
  url: string;
  from: { ordinal: number; requestId: string };
}

export class ResendMarks {
  readonly #expected: Expected[] = [];

  /** A resend of `from` is about to go out; what it returns ends the wait (the resend was answered). */
  expect(from: Pick<RequestRecord, 'ordinal' | 'requestId'>, method: string, url: string): () => void {
    const expected = { method: method.toUpperCase(), url: URL.canParse(url) ? new URL(url).href : url, from: { ordinal: from.ordinal, requestId: from.requestId } };
    this.#expected.push(expected);
    return () => {
      const index = this.#expected.indexOf(expected);
      if (index !== -1) this.#expected.splice(index, 1);
    };
  }

  /** Marks a new record resent from its original when it is the resend awaited. */
  mark(record: RequestRecord): void {
    if (this.#expected.length === 0) return;
    const index = this.#expected.findIndex((expected) => expected.method === record.method.toUpperCase() && expected.url === record.firstUrl);
    if (index === -1) return;
    record.resentFrom = this.#expected[index]!.from;
    this.#expected.splice(index, 1);
  }
}
