// The seed interface exactly (../shared/spec): Firefox's type list and option enums, no fields
// beyond §6.2, every header shown. Where the spec is silent it does what Chrome does: a beacon is
// `ping`, an auth retry fires no second onBeforeSendHeaders/onSendHeaders/onHeadersReceived.
import { EXTRA_INFO_SPEC, RESOURCE_TYPES } from '../types.js';
import { firefoxEnumKey, showsEveryHeader, type Persona } from './persona.js';
import { CHROME_SURFACES } from './surface-dialects.js';

export const specPersona: Persona = {
  name: 'spec',
  resourceTypes: RESOURCE_TYPES,
  typeOf: (seen) => (seen === 'beacon' ? 'ping' : seen),
  extraInfoSpec: EXTRA_INFO_SPEC,
  filterKeys: ['types', 'tabId', 'windowId'],
  acceptsEmptyUrls: false,
  extraBlockingKeys: {},
  extraEnums: {},
  errors: {
    badType: (where, value) => `${where}: Invalid filter: ${JSON.stringify(value)} is not a ResourceType (one of ${RESOURCE_TYPES.join(', ')}).`,
    unexpectedFilterKey: (where, key) => `${where}: Invalid filter: unexpected property "${key}".`,
    badOption: (where, event, value, _index, allowed) => `${where}: ${JSON.stringify(value)} is not a valid extraInfoSpec value for ${event} (allowed: ${allowed.join(', ')}).`,
  },
  enumKey: firefoxEnumKey,
  ...showsEveryHeader,
  preflightsNeedExtraHeaders: false,
  refiresAuthRetry: false,
  authCancelFails: false,
  hasActionIgnored: false,
  hasSecurityInfo: false,
  surfaces: CHROME_SURFACES,
  userAgent: undefined,
  hasFilterResponseData: false,
  redirectNoticeWhenFollowed: false,
  contextFields: () => ({}),
  cookieSameSite: () => undefined,
};
