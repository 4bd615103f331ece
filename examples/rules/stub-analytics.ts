// Answers requests for analytics scripts with an empty script of our own (a data: URL, served by
// wrtui itself): the page's calls into the script stay harmless and nothing reaches the vendor.
import type { RuleContext, RuleManifest } from 'wrtui/rules';

const STUB = '/* analytics stubbed by wrtui */';

export const manifest = {
  name: 'stub-analytics',
  permissions: ['webRequest', 'webRequestBlocking'],
  host_permissions: ['<all_urls>'],
  dryRun: true,
} as const satisfies RuleManifest;

export default function background({ chrome }: RuleContext<typeof manifest>): void {
  chrome.webRequest.onBeforeRequest.addListener(
    () => ({ redirectUrl: `data:text/javascript;charset=utf-8,${encodeURIComponent(STUB)}` }),
    { urls: ['*://*/*analytics.js*', '*://*/gtag/js*'], types: ['script'] },
    ['blocking'],
  );
}
