// Blocks images and scripts from tracker hosts (and their subdomains). Pages and API calls to those
// hosts still go through: only the resource types trackers use to follow you are cancelled.
import type { RuleContext, RuleManifest } from 'wrtui/rules';

const TRACKER_HOSTS = ['tracker.example', 'doubleclick.net', 'google-analytics.com', 'facebook.net'];

export const manifest = {
  name: 'block-trackers',
  permissions: ['webRequest', 'webRequestBlocking'],
  host_permissions: ['<all_urls>'],
  dryRun: true, // journal "would cancel" only; toggle it in the UI to really block
} as const satisfies RuleManifest;

export default function background({ chrome }: RuleContext<typeof manifest>): void {
  chrome.webRequest.onBeforeRequest.addListener(
    () => ({ cancel: true }),
    { urls: TRACKER_HOSTS.map((host) => `*://*.${host}/*`), types: ['image', 'script'] },
    ['blocking'],
  );
}
