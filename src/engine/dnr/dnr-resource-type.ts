// wrtui's request types are the spec's (Firefox's list); declarativeNetRequest's are Chrome's.
// The spec-only types map to what Chrome reports for the same request (Chrome calls a beacon
// `ping`, a web manifest `other`).
import type { ResourceType } from '../types.js';
import type { DnrResourceType } from './dnr-types.js';

const CHROME_NAME: Partial<Record<ResourceType, DnrResourceType>> = {
  beacon: 'ping',
  imageset: 'image',
  web_manifest: 'other',
  xbl: 'other',
  xslt: 'other',
  xml_dtd: 'other',
};

export function dnrResourceType(type: ResourceType): DnrResourceType {
  return CHROME_NAME[type] ?? (type as DnrResourceType);
}
