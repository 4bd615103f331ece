// Turns a page's Content-Security-Policy into Content-Security-Policy-Report-Only: the browser
// reports what the policy would block instead of blocking it. For debugging a site that its own
// CSP breaks; the policy text is kept as it was.
import type { RuleContext, RuleManifest } from 'wrtui/rules';
import { headerValue, withHeader, withoutHeader } from './lib/headers.js';

export const manifest = {
  name: 'csp-report-only',
  permissions: ['webRequest', 'webRequestBlocking'],
  host_permissions: ['<all_urls>'],
  dryRun: true,
} as const satisfies RuleManifest;

export default function background({ chrome }: RuleContext<typeof manifest>): void {
  chrome.webRequest.onHeadersReceived.addListener(
    (details) => {
      const headers = details.responseHeaders ?? [];
      const policy = headerValue(headers, 'Content-Security-Policy');
      if (policy === undefined) return;
      return { responseHeaders: withHeader(withoutHeader(headers, 'Content-Security-Policy'), 'Content-Security-Policy-Report-Only', policy) };
    },
    { urls: ['http://*/*', 'https://*/*'], types: ['main_frame', 'sub_frame'] },
    ['blocking', 'responseHeaders'],
  );
}
