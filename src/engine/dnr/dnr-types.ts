// declarativeNetRequest's rule shapes, as Chrome's API schema names them
// (extensions/common/api/declarative_net_request.idl).

export const RESOURCE_TYPES = [
  'main_frame',
  'sub_frame',
  'stylesheet',
  'script',
  'image',
  'font',
  'object',
  'xmlhttprequest',
  'ping',
  'csp_report',
  'media',
  'websocket',
  'webtransport',
  'webbundle',
  'other',
] as const;
export type DnrResourceType = (typeof RESOURCE_TYPES)[number];

export const REQUEST_METHODS = ['connect', 'delete', 'get', 'head', 'options', 'patch', 'post', 'put', 'other'] as const;
export type DnrRequestMethod = (typeof REQUEST_METHODS)[number];

/** Action types, in the order that breaks a tie between rules of the same priority. */
export const ACTION_ORDER = ['allow', 'allowAllRequests', 'block', 'upgradeScheme', 'redirect', 'modifyHeaders'] as const;
export type DnrActionType = (typeof ACTION_ORDER)[number];

export interface QueryKeyValue {
  key: string;
  value: string;
  replaceOnly?: boolean;
}

export interface UrlTransform {
  scheme?: string;
  host?: string;
  port?: string;
  path?: string;
  query?: string;
  queryTransform?: { removeParams?: string[]; addOrReplaceParams?: QueryKeyValue[] };
  fragment?: string;
  username?: string;
  password?: string;
}

export interface Redirect {
  url?: string;
  extensionPath?: string;
  transform?: UrlTransform;
  regexSubstitution?: string;
}

export type HeaderOperation = 'append' | 'set' | 'remove';

export interface ModifyHeaderInfo {
  header: string;
  operation: HeaderOperation;
  value?: string;
}

export interface HeaderInfo {
  header: string;
  values?: string[];
  excludedValues?: string[];
}

export interface RuleAction {
  type: DnrActionType;
  redirect?: Redirect;
  requestHeaders?: ModifyHeaderInfo[];
  responseHeaders?: ModifyHeaderInfo[];
}

export interface RuleCondition {
  urlFilter?: string;
  regexFilter?: string;
  isUrlFilterCaseSensitive?: boolean;
  initiatorDomains?: string[];
  excludedInitiatorDomains?: string[];
  requestDomains?: string[];
  excludedRequestDomains?: string[];
  /** Deprecated names of initiatorDomains / excludedInitiatorDomains, still accepted. */
  domains?: string[];
  excludedDomains?: string[];
  resourceTypes?: DnrResourceType[];
  excludedResourceTypes?: DnrResourceType[];
  requestMethods?: DnrRequestMethod[];
  excludedRequestMethods?: DnrRequestMethod[];
  domainType?: 'firstParty' | 'thirdParty';
  tabIds?: number[];
  excludedTabIds?: number[];
  responseHeaders?: HeaderInfo[];
  excludedResponseHeaders?: HeaderInfo[];
}

export interface DnrRule {
  id: number;
  priority?: number;
  condition: RuleCondition;
  action: RuleAction;
}

/** Where a rule comes from: a static ruleset's id, or `_dynamic` / `_session`. */
export type RulesetId = string;
export const DYNAMIC_RULESET_ID = '_dynamic';
export const SESSION_RULESET_ID = '_session';

/** Chrome's documented limits (the constants chrome.declarativeNetRequest exposes). */
export const DNR_LIMITS = {
  GUARANTEED_MINIMUM_STATIC_RULES: 30_000,
  MAX_NUMBER_OF_STATIC_RULESETS: 100,
  MAX_NUMBER_OF_ENABLED_STATIC_RULESETS: 50,
  MAX_NUMBER_OF_DYNAMIC_RULES: 30_000,
  MAX_NUMBER_OF_UNSAFE_DYNAMIC_RULES: 5_000,
  MAX_NUMBER_OF_SESSION_RULES: 5_000,
  MAX_NUMBER_OF_UNSAFE_SESSION_RULES: 5_000,
  MAX_NUMBER_OF_DYNAMIC_AND_SESSION_RULES: 5_000,
  MAX_NUMBER_OF_REGEX_RULES: 1_000,
  MAX_GETMATCHEDRULES_CALLS_PER_INTERVAL: 20,
  GETMATCHEDRULES_QUOTA_INTERVAL: 10,
} as const;
