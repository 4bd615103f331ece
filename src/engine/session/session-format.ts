// The session file (README.md in this folder has the full description): NDJSON, a header line,
// then every journal entry of the session as it happened, never rewritten.
import type { SerializedCookie } from 'tough-cookie';

export const SESSION_FORMAT = 'wrtui-session';
/** 2: webRequest entries as deltas (webrequest-delta.ts); 1: every entry whole. Both are read. */
export const SESSION_FORMAT_VERSION = 2;

/** The first line of a session file. */
export interface SessionHeader {
  format: typeof SESSION_FORMAT;
  version: number;
  /** ISO 8601, when recording started. */
  started: string;
  /** The same instant in epoch ms: replay's clock starts here. */
  startedAt: number;
  /** The wrtui that wrote the file. */
  wrtui: string;
  node: string;
  /** Authorization, Proxy-Authorization, Cookie and Set-Cookie values were replaced (see redaction.ts). */
  redacted: boolean;
  /** Bodies larger than this many bytes are not in the file (their body entry says complete: false). */
  maxBodySize: number;
  /** The live session's listener timeout, which replay uses too. */
  listenerTimeoutMs: number;
  /** The cookie stores as recording started, by store id ("0", "1"): tough-cookie's serialised form. */
  cookies: Record<string, SerializedCookie[]>;
}

export function isSessionHeader(value: unknown): value is SessionHeader {
  return typeof value === 'object' && value !== null && (value as { format?: unknown }).format === SESSION_FORMAT;
}
