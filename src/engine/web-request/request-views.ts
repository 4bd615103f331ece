// What filters, personas and declarativeNetRequest see of a request flight: its filterable form at
// a URL, each persona's details fields (made once), the request as the rules take it and the rule
// a block is told as.
import type { DnrRequestInfo } from '../dnr/dnr-engine.js';
import type { DnrEntry } from '../journal.js';
import { dnrResourceType } from '../dnr/dnr-resource-type.js';
import { EXTENSION_PROTOCOLS } from '../match-pattern.js';
import type { Persona } from '../personas/index.js';
import type { RequestContext } from '../personas/request-context.js';
import type { ResourceType } from '../types.js';
import { WEB_SCHEMES } from './redirect-hop.js';
import type { FilterableRequest } from './request-filter.js';
import type { ExtensionRequester } from './request-init.js';

/** The flight as these views read it (RequestFlight satisfies it). */
export interface ViewedRequest {
  readonly requestId: string;
  readonly url: string;
  readonly method: string;
  readonly type: ResourceType;
  readonly tabId: number;
  readonly windowId: number;
  readonly frameId: number;
  readonly storeId: string;
  readonly madeBy: ExtensionRequester | undefined;
  readonly context: RequestContext;
  fieldsFor(persona: Persona): Record<string, unknown>;
  fieldsJsonFor(persona: Persona): string;
}

/** The first hop's URL, parsed; a TypeError for URLs webRequest never sees. */
export function webRequestUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`Invalid request URL ${JSON.stringify(url)}`);
  }
  if (!WEB_SCHEMES.has(parsed.protocol)) throw new TypeError(`webRequest does not see ${parsed.protocol} URLs: ${url}`);
  return parsed;
}

/** What filters and personas see of the request at `url`; its context is worked out only if asked for. */
export function filterableAt(flight: ViewedRequest, url: URL): FilterableRequest {
  return {
    url,
    type: flight.type,
    tabId: flight.tabId,
    windowId: flight.windowId,
    storeId: flight.storeId,
    ...(EXTENSION_PROTOCOLS.has(url.protocol) && { extensionHost: url.host }),
    ...(flight.madeBy && { madeBy: flight.madeBy.host, ...(flight.madeBy.version && { madeByVersion: flight.madeBy.version }) }),
    get context() {
      return flight.context;
    },
    fieldsFor: (persona) => flight.fieldsFor(persona),
    fieldsJsonFor: (persona) => flight.fieldsJsonFor(persona),
  };
}

/** The request as declarativeNetRequest sees it. */
export function dnrInfoOf(flight: ViewedRequest): DnrRequestInfo {
  const { initiator, documentUrl, frameAncestors } = flight.context;
  const frameUrls = [...(documentUrl !== undefined ? [documentUrl] : []), ...(frameAncestors ?? []).map((ancestor) => ancestor.url)];
  return { requestId: flight.requestId, url: flight.url, method: flight.method, type: dnrResourceType(flight.type), tabId: flight.tabId, frameId: flight.frameId, ...(initiator !== undefined && { initiator }), ...(frameUrls.length > 0 && { frameUrls }), ...(flight.madeBy && { madeBy: flight.madeBy.host }) };
}

/** Who a declarativeNetRequest block came from, in words: `rule main#3 of Blocker`. */
export function dnrBlocker(entry: DnrEntry | undefined): string | undefined {
  const match = entry?.matches.find((candidate) => candidate.status === 'applied');
  return match && `declarativeNetRequest rule ${match.rulesetId}#${match.ruleId} of ${match.extension}`;
}

/** Each persona's details fields, made on first use: the request's context does not change between events. */
export class PersonaFields {
  readonly #request: Pick<ViewedRequest, 'context' | 'storeId' | 'type'>;
  readonly #fields = new Map<Persona, Record<string, unknown>>();
  /** Made on first use: only requests a worker's listener sees under a browser persona need it. */
  #json: Map<Persona, string> | undefined;

  constructor(request: Pick<ViewedRequest, 'context' | 'storeId' | 'type'>) {
    this.#request = request;
  }

  fieldsFor(persona: Persona): Record<string, unknown> {
    let fields = this.#fields.get(persona);
    if (!fields) {
      fields = persona.contextFields(this.#request.context, this.#request.storeId);
      this.#fields.set(persona, fields);
    }
    return fields;
  }

  fieldsJsonFor(persona: Persona): string {
    let json = this.#json?.get(persona);
    if (json === undefined) {
      // `type` first: never an empty object, whatever the persona adds.
      json = JSON.stringify({ type: persona.typeOf(this.#request.type), ...this.fieldsFor(persona) });
      (this.#json ??= new Map()).set(persona, json);
    }
    return json;
  }
}
