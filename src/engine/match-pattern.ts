// Chrome's extension match patterns, as used by RequestFilter.urls (§2.6) and manifest
// host_permissions (§5). The behaviour follows Chromium's URLPattern
// (extensions/common/url_pattern.cc); where wrtui departs from it, a comment says so.
//
//   <url-pattern> := <scheme>://<host><port><path> | '<all_urls>'
//   <scheme>      := '*' | 'http' | 'https' | 'ws' | 'wss' | 'ftp' | 'file'
//   <host>        := '*' | '*.' <any char except '/' and '*'>+ | <any char except '/' and '*'>+
//   <port>        := '' | ':*' | ':' <0-65535>
//   <path>        := '/' <any chars>          ('*' matches any run of characters)

export const ALL_URLS = '<all_urls>';

/** The schemes a pattern may name, and so the only URLs any pattern (even `<all_urls>`) matches. */
export const PERMITTED_SCHEMES: readonly string[] = ['http', 'https', 'ws', 'wss', 'ftp', 'file'];

// Chromium's URLPattern::SetScheme narrows `*` to http and https only, and the Chrome docs say
// "A wildcard *, which matches only http or https". Firefox also lets `*` match ws/wss; Chrome
// does not (checked in url_pattern.cc), so a WebSocket needs ws://, wss:// or <all_urls>.
const WILDCARD_SCHEME_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:']);
const ALL_PROTOCOLS: ReadonlySet<string> = new Set(PERMITTED_SCHEMES.map((scheme) => `${scheme}:`));

/** Ports the WHATWG parser leaves out of `url.port`; Chrome compares the effective port. */
const DEFAULT_PORTS: Readonly<Record<string, string>> = {
  'http:': '80',
  'https:': '443',
  'ws:': '80',
  'wss:': '443',
  'ftp:': '21',
};

// WHATWG "forbidden host code points" that `new URL` would otherwise reinterpret (`@`, `\`, `/`…)
// or silently strip (tab, newline) instead of rejecting.
const FORBIDDEN_HOST_CHARACTERS = /[\0\t\n\r #/:<>?@[\\\]^|]/;
const IPV6_LITERAL = /^\[[0-9A-Fa-f:.]+\]$/;
const CANONICAL_IPV4 = /^\d+\.\d+\.\d+\.\d+$/;
const PORT_NUMBER = /^\d{1,5}$/;
const SCHEME_NAME = /^[a-zA-Z][a-zA-Z0-9+.-]*$/;

export class MatchPatternError extends TypeError {
  /** The pattern text as given. */
  readonly pattern: string;
  /** What is wrong with it, without the pattern. */
  readonly reason: string;

  constructor(pattern: string, reason: string) {
    super(`Invalid match pattern ${JSON.stringify(pattern)}: ${reason}`);
    this.name = 'MatchPatternError';
    this.pattern = pattern;
    this.reason = reason;
  }
}

/** Host rule: `*` (any), `*.example.com` (the domain and its subdomains) or an exact host. */
type HostRule =
  | { readonly kind: 'any' }
  | { readonly kind: 'exact'; readonly host: string }
  | { readonly kind: 'domain'; readonly host: string; readonly dotHost: string };

interface CompiledParts {
  readonly protocols: ReadonlySet<string>;
  readonly isAllUrls: boolean;
  /** Undefined for file: patterns, whose host Chrome ignores. */
  readonly host: HostRule | undefined;
  /** Canonical decimal port, or undefined for any port. */
  readonly port: string | undefined;
  readonly path: PathGlob;
}

/** Lets MatchPatternSet reuse one UrlFields for all its patterns (set in MatchPattern's static block). */
let matchesFields: (pattern: MatchPattern, url: UrlFields) => boolean;

export class MatchPattern {
  /** The original text. */
  readonly pattern: string;
  readonly #parts: CompiledParts;

  private constructor(pattern: string, parts: CompiledParts) {
    this.pattern = pattern;
    this.#parts = parts;
  }

  /** Parses and compiles a pattern once; throws MatchPatternError saying what is wrong. */
  static parse(pattern: string, options: PatternOptions = {}): MatchPattern {
    return new MatchPattern(pattern, compilePattern(pattern, options));
  }

  /** Whether the URL matches; false for unparseable URLs and non-permitted schemes. Never throws. */
  matches(url: string | URL): boolean {
    const parsed = toUrl(url);
    return parsed !== undefined && this.#matchesFields(new UrlFields(parsed));
  }

  /**
   * Whether this pattern alone matches every URL of `scheme` (e.g. "http"): true for <all_urls>
   * and for any-host, any-port patterns whose path is a lone star after the slash (the `*` scheme
   * covering http and https only); false for anything narrowed by host, port or path.
   */
  matchesEveryUrlWithScheme(scheme: string): boolean {
    const { protocols, isAllUrls, host, port, path } = this.#parts;
    if (!protocols.has(`${scheme}:`)) return false;
    if (isAllUrls) return true;
    return (host === undefined || host.kind === 'any') && port === undefined && path.matchesEveryPath;
  }

  toString(): string {
    return this.pattern;
  }

  #matchesFields(url: UrlFields): boolean {
    const { protocols, isAllUrls, host, port, path } = this.#parts;
    if (!protocols.has(url.protocol)) return false;
    if (isAllUrls) return true;
    if (host !== undefined && !hostMatches(host, url.host)) return false;
    if (port !== undefined && url.effectivePort !== port) return false;
    return path.matches(url.pathAndQuery);
  }

  static {
    matchesFields = (pattern, url) => pattern.#matchesFields(url);
  }
}

export class MatchPatternSet {
  readonly patterns: readonly MatchPattern[];
  /** True when the set matches every URL of every permitted scheme, e.g. it contains <all_urls>. */
  readonly matchesAll: boolean;

  /** Throws MatchPatternError naming the first bad pattern. */
  constructor(patterns: readonly string[], options: PatternOptions = {}) {
    this.patterns = patterns.map((pattern) => MatchPattern.parse(pattern, options));
    this.matchesAll = PERMITTED_SCHEMES.every((scheme) =>
      this.patterns.some((pattern) => pattern.matchesEveryUrlWithScheme(scheme)),
    );
  }

  /** True when any pattern matches; the URL is parsed, and its fields read, once for all of them. */
  matches(url: string | URL): boolean {
    const parsed = toUrl(url);
    if (parsed === undefined) return false;
    const fields = new UrlFields(parsed);
    for (const pattern of this.patterns) {
      if (matchesFields(pattern, fields)) return true;
    }
    return false;
  }
}

/** Undefined when the pattern is valid, else the MatchPatternError message. */
export function validateMatchPattern(pattern: string): string | undefined {
  try {
    compilePattern(pattern);
    return undefined;
  } catch (error) {
    if (error instanceof MatchPatternError) return error.message;
    throw error;
  }
}

// --- Parsing -------------------------------------------------------------------------------

/**
 * `extensionSchemes`: a webRequest filter may also name extensions' own URLs
 * (chrome-extension://<id>/…, moz-extension://…), as Chromium's filters accept them (Decentraleyes
 * guards its resources with one); host permissions may not. <all_urls> never includes them.
 */
export interface PatternOptions {
  extensionSchemes?: boolean;
}

/** The schemes of extensions' own URLs (chrome-extension://<id>/…): filters, redirects and the lifecycle share this list. */
export const EXTENSION_SCHEMES: readonly string[] = ['chrome-extension', 'moz-extension'];
/** The same, as `URL.protocol` writes them. */
export const EXTENSION_PROTOCOLS: ReadonlySet<string> = new Set(EXTENSION_SCHEMES.map((scheme) => `${scheme}:`));

const SEEN_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:', 'ws:', 'wss:', ...EXTENSION_PROTOCOLS]);

/** webRequest reports events at this URL (web schemes, extensions' own); a request redirected elsewhere (data:, about:blank) ends there. */
export function seenByWebRequest(url: string): boolean {
  const colon = url.indexOf(':');
  return colon > 0 && SEEN_PROTOCOLS.has(url.slice(0, colon + 1).toLowerCase());
}

function compilePattern(pattern: string, options: PatternOptions = {}): CompiledParts {
  const fail = (reason: string): never => {
    throw new MatchPatternError(pattern, reason);
  };

  if (pattern === ALL_URLS) {
    return { protocols: ALL_PROTOCOLS, isAllUrls: true, host: { kind: 'any' }, port: undefined, path: new PathGlob('/*') };
  }
  if (pattern === '') fail(`pattern is empty; use "${ALL_URLS}" or "<scheme>://<host>/<path>"`);

  const separator = pattern.indexOf('://');
  if (separator === -1) {
    // "data:*" or "about:blank": say the scheme is the problem, not the missing "//".
    const colon = pattern.indexOf(':');
    const scheme = colon > 0 ? pattern.slice(0, colon) : '';
    if (SCHEME_NAME.test(scheme) && !PERMITTED_SCHEMES.includes(scheme)) fail(unsupportedSchemeReason(scheme));
    fail('missing "://" after the scheme');
  }
  const scheme = pattern.slice(0, separator);
  const protocols = (options.extensionSchemes && EXTENSION_SCHEMES.includes(scheme) ? new Set([`${scheme}:`]) : schemeProtocols(scheme)) ?? fail(unsupportedSchemeReason(scheme));
  const afterScheme = pattern.slice(separator + 3);
  if (afterScheme === '') fail('missing host and path');

  if (scheme === 'file') {
    // Chrome ignores a file: pattern's host (file://localhost/x is file:///x) and even lets the
    // path's slash be left out (file://foo* is file:///foo*).
    const slash = afterScheme.indexOf('/');
    const path = slash === -1 ? `/${afterScheme}` : afterScheme.slice(slash);
    return { protocols, isAllUrls: false, host: undefined, port: undefined, path: new PathGlob(path) };
  }

  const slash = afterScheme.indexOf('/');
  if (slash === 0) fail('host is empty');
  if (slash === -1) fail('missing path; add "/*" (or another path starting with "/") after the host');
  const { hostText, portText } = splitHostAndPort(afterScheme.slice(0, slash), fail);
  const port = portText === undefined ? undefined : parsePort(portText, scheme, fail);
  const host = parseHost(hostText, fail);
  return { protocols, isAllUrls: false, host, port, path: new PathGlob(afterScheme.slice(slash)) };
}

function schemeProtocols(scheme: string): ReadonlySet<string> | undefined {
  if (scheme === '*') return WILDCARD_SCHEME_PROTOCOLS;
  return PERMITTED_SCHEMES.includes(scheme) ? new Set([`${scheme}:`]) : undefined;
}

function unsupportedSchemeReason(scheme: string): string {
  const supported = `use one of ${PERMITTED_SCHEMES.join(', ')} or *`;
  if (scheme === '') return `scheme is empty; ${supported}`;
  // Chrome compares schemes case-sensitively, so HTTP://… is rejected rather than lowercased.
  const hint = PERMITTED_SCHEMES.includes(scheme.toLowerCase()) ? ' (schemes are lower case)' : '';
  return `scheme ${JSON.stringify(scheme)} is not supported${hint}; ${supported}`;
}

/** Splits `host[:port]`, where host may be a bracketed IPv6 literal (whose colons are not ports). */
function splitHostAndPort(
  hostAndPort: string,
  fail: (reason: string) => never,
): { hostText: string; portText: string | undefined } {
  if (hostAndPort.startsWith('[')) {
    const close = hostAndPort.indexOf(']');
    if (close === -1) fail('IPv6 host is missing its closing "]"');
    const rest = hostAndPort.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) fail(`unexpected ${JSON.stringify(rest)} after the IPv6 host`);
    return { hostText: hostAndPort.slice(0, close + 1), portText: rest === '' ? undefined : rest.slice(1) };
  }
  const colon = hostAndPort.indexOf(':');
  if (colon === -1) return { hostText: hostAndPort, portText: undefined };
  return { hostText: hostAndPort.slice(0, colon), portText: hostAndPort.slice(colon + 1) };
}

function parsePort(portText: string, scheme: string, fail: (reason: string) => never): string | undefined {
  if (portText === '*') return undefined;
  if (!PORT_NUMBER.test(portText) || Number(portText) > 65535) {
    fail(`port ${JSON.stringify(portText)} must be a number from 0 to 65535, or "*"`);
  }
  // Chrome accepts a numeric port only for a scheme with a default port, which `*` is not.
  if (scheme === '*') fail(`a numeric port needs an explicit scheme (http, https, …); with "*" as scheme the port may only be "*"`);
  // Chrome keeps "080" as text that never equals a URL's "80"; wrtui compares the number instead.
  return String(Number(portText));
}

function parseHost(hostText: string, fail: (reason: string) => never): HostRule {
  if (hostText === '' || hostText === '[]') fail('host is empty');
  if (hostText === '*') return { kind: 'any' };
  const matchesSubdomains = hostText.startsWith('*.');
  const domain = matchesSubdomains ? hostText.slice(2) : hostText;
  if (matchesSubdomains && domain === '') fail('host is empty after "*."');
  if (domain.includes('*')) fail('host may only start with "*."');
  const host = stripTrailingDot(canonicalHost(domain) ?? fail(`host ${JSON.stringify(domain)} is not a valid host name or IP address`));
  return matchesSubdomains ? { kind: 'domain', host, dotHost: `.${host}` } : { kind: 'exact', host };
}

/** The WHATWG URL parser's form of a host (lowercase, punycode, canonical IPs), or undefined if invalid. */
function canonicalHost(host: string): string | undefined {
  const looksValid = host.startsWith('[') ? IPV6_LITERAL.test(host) : !FORBIDDEN_HOST_CHARACTERS.test(host);
  if (!looksValid) return undefined;
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}

// --- Matching ------------------------------------------------------------------------------

function toUrl(url: string | URL): URL | undefined {
  if (url instanceof URL) return url;
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

// Chrome drops one trailing dot from both the URL's and the pattern's host before comparing, so
// http://example.com./ matches http://example.com/* and vice versa.
function stripTrailingDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** `host` is the URL's hostname without its trailing dot. */
function hostMatches(rule: HostRule, host: string): boolean {
  if (rule.kind === 'any') return true;
  if (host === rule.host) return true;
  if (rule.kind === 'exact') return false;
  // Chrome never does subdomain matching against an IP address.
  return host.length > rule.dotHost.length && host.endsWith(rule.dotHost) && !isIpAddress(host);
}

function isIpAddress(canonicalHostname: string): boolean {
  return canonicalHostname.startsWith('[') || CANONICAL_IPV4.test(canonicalHostname);
}

/** The parts of a URL that patterns compare, each read from the URL at most once. */
class UrlFields {
  readonly #url: URL;
  readonly protocol: string;
  #host: string | undefined;
  #pathAndQuery: string | undefined;

  constructor(url: URL) {
    this.#url = url;
    this.protocol = url.protocol;
  }

  get host(): string {
    return (this.#host ??= stripTrailingDot(this.#url.hostname));
  }

  /** The URL's port, or its scheme's default port when the parser left it out. */
  get effectivePort(): string | undefined {
    return this.#url.port || DEFAULT_PORTS[this.protocol];
  }

  /**
   * What Chrome matches a pattern's path against: path plus query, without the fragment. WHATWG
   * reports an empty query ("/a?") as search "", but Chrome's PathForRequest keeps the "?".
   */
  get pathAndQuery(): string {
    if (this.#pathAndQuery !== undefined) return this.#pathAndQuery;
    const url = this.#url;
    const search = url.search;
    if (search !== '') return (this.#pathAndQuery = url.pathname + search);
    const href = url.href;
    const hash = url.hash;
    let end = href.length - hash.length;
    if (hash === '' && href.charCodeAt(end - 1) === 0x23 /* # */) end -= 1;
    const hasEmptyQuery = href.charCodeAt(end - 1) === 0x3f; /* ? */
    return (this.#pathAndQuery = hasEmptyQuery ? `${url.pathname}?` : url.pathname);
  }
}

/**
 * A pattern path compiled once: `*` matches any run of characters (including "/" and none);
 * everything else, `?` and regex metacharacters included, is literal. Matching splits at the
 * stars: the first piece must be a prefix, the last a suffix, and the middle pieces are found
 * left to right with indexOf (leftmost is always safe for `*`), so no regex backtracking.
 */
class PathGlob {
  readonly #literal: string | undefined;
  readonly #prefix: string;
  readonly #suffix: string;
  readonly #middle: readonly string[];
  /** Chrome's quirk: "/foo/*" also matches "/foo" (its MatchesPath compares path == test + "/*"). */
  readonly #pathWithoutTrailingSlashStar: string | undefined;
  readonly matchesEveryPath: boolean;

  constructor(glob: string) {
    const pieces = glob.split('*');
    this.#literal = pieces.length === 1 ? glob : undefined;
    this.#prefix = pieces[0] ?? '';
    this.#suffix = pieces.length > 1 ? (pieces[pieces.length - 1] ?? '') : '';
    this.#middle = pieces.slice(1, -1).filter((piece) => piece !== '');
    // Chrome makes that comparison with "?" and "\" escaped, which no URL's path and query can
    // equal, so a path containing either never gets the quirk.
    this.#pathWithoutTrailingSlashStar =
      glob.endsWith('/*') && !/[?\\]/.test(glob) ? glob.slice(0, -2) : undefined;
    // Every URL path starts with "/", so "/*" (or "/**"…) matches them all.
    this.matchesEveryPath = /^\/?\*+$/.test(glob);
  }

  matches(text: string): boolean {
    if (this.#literal !== undefined) return text === this.#literal;
    if (text === this.#pathWithoutTrailingSlashStar) return true;
    const prefix = this.#prefix;
    const suffix = this.#suffix;
    const end = text.length - suffix.length;
    if (end < prefix.length || !text.startsWith(prefix) || !text.endsWith(suffix)) return false;
    let position = prefix.length;
    for (const piece of this.#middle) {
      const found = text.indexOf(piece, position);
      if (found === -1 || found + piece.length > end) return false;
      position = found + piece.length;
    }
    return true;
  }
}
