// The rest of Debian's webext-* packages that use webRequest (Bulk Media Downloader, FoxyProxy,
// Proxy Switcher, which draws its icon on a canvas and replaces `chrome.proxy` with its own object,
// and the password managers' HTTP-auth helpers, KeePassXC-Browser and Browserpass, whose native
// host is absent as on a machine without the app), loaded unchanged: each starts with no error, its listeners are registered, and a news page
// Chromium loads through wrtui is served whole (these observe or route traffic; none of them
// blocks on its own). Tree Style Tab (cookies, but no webRequest) is not among them: it needs
// Firefox's containers (contextualIdentities), which wrtui does not have.
import { afterEach, describe, expect, it } from 'vitest';
import { FIRST_PARTY, missing, startCorpusRig, type CorpusPackage, type CorpusRig } from '../helpers/real-extensions.js';

let rig: CorpusRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const PACKAGES: CorpusPackage[] = ['webext-bulk-media-downloader', 'webext-foxyproxy', 'webext-proxy-switcher', 'webext-keepassxc-browser', 'webext-browserpass'];

describe.each(PACKAGES)('%s', (pkg) => {
  it.skipIf(missing(pkg))('loads unchanged with no error, and the page loads whole through it', { timeout: 120_000 }, async () => {
    rig = await startCorpusRig(pkg, 'firefox');
    await rig.harness.waitFor((entry) => entry.kind === 'rule' && (entry.action === 'loaded' || entry.action === 'failed'), 60_000);
    expect(rig.host.rules()[0]).toMatchObject({ state: 'active' });
    await rig.browse();
    expect(rig.received()).toEqual(expect.arrayContaining([`${FIRST_PARTY}/`, `${FIRST_PARTY}/own/logo.png`, `${FIRST_PARTY}/own/app.js`, 'www.google-analytics.com/analytics.js']));
    expect(rig.problems()).toEqual([]);
  });
});
