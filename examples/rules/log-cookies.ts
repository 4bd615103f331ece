// Logs every cookie change: what was set or removed, where, and why (explicit, overwrite, expired,
// evicted). A rule's console.log lands in wrtui's journal under the rule's name.
import type { RuleContext, RuleManifest } from 'wrtui/rules';

export const manifest = {
  name: 'log-cookies',
  permissions: ['cookies'],
  host_permissions: ['<all_urls>'],
  dryRun: true, // nothing to apply: this rule only watches
} as const satisfies RuleManifest;

export default function background({ chrome }: RuleContext<typeof manifest>): void {
  chrome.cookies.onChanged.addListener(({ removed, cookie, cause }) => {
    console.log(`${removed ? 'removed' : 'set'} ${cookie.name} for ${cookie.domain}${cookie.path} (${cause}) in store ${cookie.storeId}`);
  });
}
