// How each browser's own surfaces (tabs, windows, the toolbar button, menus, runtime's start-up
// calls) answer an extension when no tab, window or menu is open: the words and shapes differ.
// Measured with one probe extension in Chromium 156 (test/extensions/chromium-surfaces.test.ts)
// and in Firefox ESR 153.7 (test/personas/firefox-surfaces.test.ts).
import type { SurfaceDialect } from './persona.js';

export const CHROME_SURFACES: SurfaceDialect = {
  noTab: (id) => `No tab with id: ${String(id)}.`,
  noWindow: (id) => `No window with id: ${String(id)}.`,
  duplicateMenu: (id) => `Cannot create item with duplicate id ${String(id)}`,
  framesOfMissingTabFail: false,
  uiLocale: 'en_US',
  naclArch: true,
  // Chrome lists the permissions sorted.
  permissionsAll: (permissions, origins) => ({ origins: [...origins], permissions: [...permissions].sort() }),
  hasRequestUpdateCheck: true,
  windowEvents: ['onBoundsChanged', 'onCreated', 'onFocusChanged', 'onRemoved'],
  badgeBackground: [0, 0, 0, 0],
  portErrorOnPort: false,
  fullBrowserAction: false,
  menus: false,
  noLastError: undefined,
  backgroundFrameId: -1,
  listsActionCommand: true,
  managedStorageError: undefined,
  // Chromium 156's words, its value store's resource names and all.
  syncQuotaError: (kind) => `Resource::k${kind === 'bytes' ? 'QuotaBytes' : kind === 'bytesPerItem' ? 'QuotaBytesPerItem' : 'MaxItems'} quota exceeded`,
  syncConstants: true,
  proxySettings: 'chrome',
  browserInfo: undefined,
};

export const FIREFOX_SURFACES: SurfaceDialect = {
  noTab: (id) => `Invalid tab ID: ${String(id)}`,
  noWindow: (id) => `Invalid window ID: ${String(id)}`,
  duplicateMenu: (id) => `ID already exists: ${String(id)}`,
  framesOfMissingTabFail: true,
  uiLocale: 'en-US',
  naclArch: false,
  // Firefox keeps the manifest's order and says which data the add-on collects (none declared).
  permissionsAll: (permissions, origins) => ({ origins: [...origins], data_collection: [], permissions: [...permissions] }),
  hasRequestUpdateCheck: false,
  windowEvents: ['onCreated', 'onFocusChanged', 'onRemoved'],
  badgeBackground: [217, 0, 0, 255],
  portErrorOnPort: true,
  fullBrowserAction: true,
  menus: true,
  noLastError: null,
  backgroundFrameId: 0,
  listsActionCommand: false,
  managedStorageError: 'Managed storage manifest not found',
  syncQuotaError: () => 'QuotaExceededError: storage.sync API call exceeded its quota limitations.',
  syncConstants: false,
  proxySettings: 'firefox',
  // Firefox ESR 153.7.0 as Debian ships it (its application.ini).
  browserInfo: { name: 'Firefox', vendor: 'Mozilla', version: '153.7.0', buildID: '20261103151912' },
};
