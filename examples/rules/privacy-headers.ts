// Sends Global Privacy Control (`Sec-GPC: 1`) with every request and strips `X-Client-Data`,
// the header Chrome uses to tag requests to Google with its field-trial state.
import type { RuleContext, RuleManifest } from 'wrtui/rules';
import { withHeader, withoutHeader } from './lib/headers.js';

export const manifest = {
  name: 'privacy-headers',
  permissions: ['webRequest', 'webRequestBlocking'],
  host_permissions: ['<all_urls>'],
  dryRun: true,
} as const satisfies RuleManifest;

export default function background({ chrome }: RuleContext<typeof manifest>): void {
  chrome.webRequest.onBeforeSendHeaders.addListener(
    (details) => ({ requestHeaders: withHeader(withoutHeader(details.requestHeaders ?? [], 'X-Client-Data'), 'Sec-GPC', '1') }),
    { urls: ['http://*/*', 'https://*/*'] },
    ['blocking', 'requestHeaders'],
  );
}
