// spec §4.2 getAll filters, checked by fast-check against a naive reference filter written here
// from the spec's words: "Only cookies that would match this URL", "Filter by name", "Cookies whose
// domain matches or is a subdomain of it", "Cookies whose path equals it exactly", "Filter by
// Secure property", "Session vs persistent filter", "sorted with longest path first; equal path
// length is ordered by earliest creation time first".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { browserCookies, recordingJars } from './helpers.js';
import type { CookieGetAllDetails } from '../../src/engine/cookies/get-all-filter.js';

interface GeneratedCookie {
  host: string;
  name: string;
  value: string;
  /** Domain attribute: none (host-only), the host itself, or its parent. */
  domain: 'host-only' | 'host' | 'parent';
  path: string;
  secure: boolean;
  session: boolean;
  httpOnly: boolean;
}

/** What the reference believes is stored, in creation order. */
interface ModelCookie {
  name: string;
  domain: string; // bare
  hostOnly: boolean;
  path: string;
  secure: boolean;
  session: boolean;
  created: number;
}

const HOSTS = ['example.com', 'www.example.com', 'a.www.example.com', 'other.org', 'x.other.org'];
const PATHS = ['/', '/p', '/p/q', '/r'];
const NAMES = ['a', 'b', 'c'];

const cookieArbitrary: fc.Arbitrary<GeneratedCookie> = fc.record({
  host: fc.constantFrom(...HOSTS),
  name: fc.constantFrom(...NAMES),
  value: fc.stringMatching(/^[a-z0-9]{0,4}$/),
  domain: fc.constantFrom('host-only', 'host', 'parent'),
  path: fc.constantFrom(...PATHS),
  secure: fc.boolean(),
  session: fc.boolean(),
  httpOnly: fc.boolean(),
});

const filterArbitrary: fc.Arbitrary<CookieGetAllDetails> = fc.record(
  {
    url: fc
      .tuple(fc.constantFrom('http', 'https'), fc.constantFrom(...HOSTS, 'b.x.other.org', 'nowhere.net'), fc.constantFrom('/', '/p', '/p/', '/p/q/z', '/pq', '/r', '/x'))
      .map(([scheme, host, path]) => `${scheme}://${host}${path}?query=1`),
    name: fc.constantFrom(...NAMES, 'zzz'),
    domain: fc.constantFrom('example.com', '.example.com', 'www.example.com', 'a.www.example.com', 'other.org', 'com', 'ample.com', 'org'),
    path: fc.constantFrom(...PATHS, '/p/'),
    secure: fc.boolean(),
    session: fc.boolean(),
  },
  { requiredKeys: [] },
);

function parentOf(host: string): string {
  const labels = host.split('.');
  return labels.length > 2 ? labels.slice(1).join('.') : host;
}

function storedDomain(cookie: GeneratedCookie): string {
  return cookie.domain === 'parent' ? parentOf(cookie.host) : cookie.host;
}

function setCookieHeader(cookie: GeneratedCookie): string {
  let header = `${cookie.name}=${cookie.value}; Path=${cookie.path}`;
  if (cookie.domain !== 'host-only') header += `; Domain=${storedDomain(cookie)}`;
  if (cookie.secure) header += '; Secure';
  if (cookie.httpOnly) header += '; HttpOnly';
  if (!cookie.session) header += '; Max-Age=86400';
  return header;
}

// ── The naive reference ──────────────────────────────────────────────────────────────────────

function wouldBeSentTo(cookie: ModelCookie, url: URL): boolean {
  const host = url.hostname;
  const domainOk = cookie.hostOnly ? host === cookie.domain : host === cookie.domain || host.endsWith(`.${cookie.domain}`);
  const requestPath = url.pathname;
  const pathOk =
    requestPath === cookie.path ||
    (requestPath.startsWith(cookie.path) && (cookie.path.endsWith('/') || requestPath[cookie.path.length] === '/'));
  const secureOk = !cookie.secure || url.protocol === 'https:';
  return domainOk && pathOk && secureOk;
}

function referenceGetAll(stored: ModelCookie[], filter: CookieGetAllDetails): string[] {
  const filterDomain = filter.domain?.replace(/^\./, '');
  return stored
    .filter((cookie) => filter.url === undefined || wouldBeSentTo(cookie, new URL(filter.url)))
    .filter((cookie) => filter.name === undefined || cookie.name === filter.name)
    .filter((cookie) => filterDomain === undefined || cookie.domain === filterDomain || cookie.domain.endsWith(`.${filterDomain}`))
    .filter((cookie) => filter.path === undefined || cookie.path === filter.path)
    .filter((cookie) => filter.secure === undefined || cookie.secure === filter.secure)
    .filter((cookie) => filter.session === undefined || cookie.session === filter.session)
    .sort((a, b) => b.path.length - a.path.length || a.created - b.created)
    .map((cookie) => `${cookie.name} ${cookie.hostOnly ? '' : '.'}${cookie.domain} ${cookie.path}`);
}

describe('spec §4.2 getAll filters (property: wrtui agrees with a naive reference filter)', () => {
  it('for any set of cookies and any combination of filters', async () => {
    await fc.assert(
      fc.asyncProperty(
        // One cookie per (name, domain, path): the reference need not model overwrites.
        fc.uniqueArray(cookieArbitrary, { selector: (cookie) => `${cookie.name} ${storedDomain(cookie)} ${cookie.path}`, maxLength: 25 }),
        fc.array(filterArbitrary, { minLength: 1, maxLength: 5 }),
        async (generated, filters) => {
          const { jars, clock } = recordingJars();
          const model: ModelCookie[] = [];
          for (const cookie of generated) {
            const outcome = jars.setFromResponse(`https://${cookie.host}/`, [setCookieHeader(cookie)]);
            expect(outcome.rejected).toEqual([]);
            model.push({
              name: cookie.name,
              domain: storedDomain(cookie),
              hostOnly: cookie.domain === 'host-only',
              path: cookie.path,
              secure: cookie.secure,
              session: cookie.session,
              created: clock.now(),
            });
            clock.advance(1);
          }
          const { cookies } = browserCookies(jars);
          for (const filter of filters) {
            const actual = (await cookies.getAll(filter)).map((cookie) => `${cookie.name} ${cookie.domain} ${cookie.path}`);
            expect(actual).toEqual(referenceGetAll(model, filter));
          }
          await jars.close();
        },
      ),
      { numRuns: 300 },
    );
  });
});
