// A URL's authority and path, split without new URL(): the list and the filter do it for every
// request, and data: or about: URLs must not throw.

export function splitUrl(url: string): { host: string; path: string } {
  // Cheaper than new URL() for the common case, and tolerant of data: and about: URLs.
  const scheme = url.indexOf('://');
  if (scheme === -1) return { host: '', path: url };
  const rest = url.slice(scheme + 3);
  const slash = rest.search(/[/?#]/);
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const at = authority.lastIndexOf('@');
  return { host: at === -1 ? authority : authority.slice(at + 1), path: slash === -1 ? '/' : rest.slice(slash) };
}

/** The host of an authority without its port; an IPv6 address without its brackets. */
export function hostnameOf(authority: string): string {
  if (authority.startsWith('[')) return authority.slice(1, authority.indexOf(']') === -1 ? undefined : authority.indexOf(']'));
  const colon = authority.lastIndexOf(':');
  return colon === -1 ? authority : authority.slice(0, colon);
}
