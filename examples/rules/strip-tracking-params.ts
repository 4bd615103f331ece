// Removes tracking parameters (utm_*, fbclid, gclid, …) from URLs by redirecting to the same URL
// without them. Other parameters keep their order and encoding.
import type { RuleContext, RuleManifest } from 'wrtui/rules';

const TRACKING_PARAMETER = /^(utm_[a-z_]+|fbclid|gclid|dclid|gbraid|wbraid|msclkid|mc_eid|igshid)$/i;

export const manifest = {
  name: 'strip-tracking-params',
  permissions: ['webRequest', 'webRequestBlocking'],
  host_permissions: ['<all_urls>'],
  dryRun: true,
} as const satisfies RuleManifest;

/** The URL without tracking parameters, or undefined when it has none. */
function withoutTracking(href: string): string | undefined {
  const url = new URL(href);
  const pairs = url.search.slice(1).split('&');
  const kept = pairs.filter((pair) => !TRACKING_PARAMETER.test(pair.split('=', 1)[0] ?? ''));
  if (kept.length === pairs.length) return undefined;
  url.search = kept.length > 0 ? `?${kept.join('&')}` : '';
  return url.href;
}

export default function background({ chrome }: RuleContext<typeof manifest>): void {
  chrome.webRequest.onBeforeRequest.addListener(
    (details) => {
      const clean = withoutTracking(details.url);
      return clean === undefined ? undefined : { redirectUrl: clean };
    },
    { urls: ['http://*/*?*', 'https://*/*?*'] },
    ['blocking'],
  );
}
