// Chrome DevTools' resource type names (HAR `_resourceType`) and webRequest's ResourceType (§2.4).
import { RESOURCE_TYPES, type ResourceType } from '../../types.js';

const FROM_CHROME: Readonly<Record<string, ResourceType>> = {
  document: 'main_frame',
  stylesheet: 'stylesheet',
  script: 'script',
  image: 'image',
  font: 'font',
  media: 'media',
  texttrack: 'media',
  xhr: 'xmlhttprequest',
  fetch: 'xmlhttprequest',
  eventsource: 'xmlhttprequest',
  prefetch: 'other',
  websocket: 'websocket',
  manifest: 'web_manifest',
  ping: 'ping',
  'csp-violation-report': 'csp_report',
  cspviolationreport: 'csp_report',
  other: 'other',
};

const TO_CHROME: Readonly<Record<ResourceType, string>> = {
  main_frame: 'document',
  sub_frame: 'document',
  stylesheet: 'stylesheet',
  script: 'script',
  image: 'image',
  imageset: 'image',
  font: 'font',
  media: 'media',
  xmlhttprequest: 'xhr',
  websocket: 'websocket',
  web_manifest: 'manifest',
  ping: 'ping',
  beacon: 'ping',
  csp_report: 'csp-violation-report',
  object: 'other',
  xbl: 'other',
  xslt: 'stylesheet',
  xml_dtd: 'other',
  other: 'other',
};

/** The ResourceType of a Chrome resource type name; undefined when unknown. */
export function resourceTypeFromChrome(name: string | undefined): ResourceType | undefined {
  return name === undefined ? undefined : FROM_CHROME[name.toLowerCase()];
}

export function chromeResourceType(type: ResourceType): string {
  return TO_CHROME[type];
}

export function isResourceType(value: unknown): value is ResourceType {
  return typeof value === 'string' && (RESOURCE_TYPES as readonly string[]).includes(value);
}
