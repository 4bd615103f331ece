// The Cookie header a proxied request carries: the store's cookies for the URL, merged with the
// ones the client sent itself. The store's cookie wins on a name both have (it is what extensions
// see and edit through the cookies API); the client's other cookies follow, in their order.

/** Merges the store's Cookie header with the client's; undefined when neither has any. */
export function mergeCookieHeader(fromStore: string, fromClient: string | undefined): string | undefined {
  if (!fromClient) return fromStore || undefined;
  if (!fromStore) return fromClient;
  const storeNames = new Set(fromStore.split(';').map(nameOf));
  const clientOnly = fromClient
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && !storeNames.has(nameOf(pair)));
  return clientOnly.length > 0 ? `${fromStore}; ${clientOnly.join('; ')}` : fromStore;
}

/** The cookie names of a Cookie header, in order. */
export function cookieNames(header: string): string[] {
  return header.split(';').map(nameOf).filter((name) => name !== '');
}

function nameOf(pair: string): string {
  const index = pair.indexOf('=');
  return (index === -1 ? '' : pair.slice(0, index)).trim();
}
