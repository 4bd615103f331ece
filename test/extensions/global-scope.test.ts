// The global scope as an EventTarget where Chromium 156 cannot be the oracle: MV2 background pages
// (Chromium no longer runs MV2) and what wrtui says when a listener on the global throws. The
// service worker's side is compared with Chromium in chromium-service-worker.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { openRuleFolder, type RuleFolder } from '../rules/rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

const mv2 = (name: string, scripts: Record<string, string>) => ({
  [`${name}/manifest.json`]: JSON.stringify({ manifest_version: 2, name, version: '1', background: { scripts: Object.keys(scripts) } }),
  ...Object.fromEntries(Object.entries(scripts).map(([file, source]) => [`${name}/${file}`, source])),
});

describe("a background page's window", () => {
  it('fires DOMContentLoaded, then load, once every background script ran (window.addEventListener and window.onload)', async () => {
    folder = await openRuleFolder({
      files: mv2('Page', {
        'a.js': `self.order = ['a.js ran'];
window.addEventListener('DOMContentLoaded', (event) => order.push('DOMContentLoaded ' + (event.target === window)));
window.onload = () => order.push('onload');`,
        'b.js': `order.push('b.js ran'); window.addEventListener('load', () => order.push('load listener'));
setTimeout(() => console.log(JSON.stringify(order)), 50);`,
      }),
    });
    const entry = await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'Page' && e.message.startsWith('['), { since: 0 });
    // Listeners run in the order they were added: onload was set before b.js added its own.
    expect(JSON.parse((entry as { message: string }).message)).toEqual(['a.js ran', 'b.js ran', 'DOMContentLoaded true', 'onload', 'load listener']);
  });

  it("a listener on the global that throws is reported at its file:line, and the other listeners still run", async () => {
    folder = await openRuleFolder({
      files: mv2('Thrower', {
        'bg.js': `window.addEventListener('load', () => { null.boom; });
window.addEventListener('load', () => console.log('second listener ran'));`,
      }),
    });
    await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'Thrower' && e.message === 'second listener ran', { since: 0 });
    const uncaught = folder.logEntries('Thrower').filter((e) => e.level === 'error');
    expect(uncaught.map((e) => e.message)).toEqual([expect.stringMatching(/^a "load" event listener: TypeError: Cannot read properties of null \(reading 'boom'\)/)]);
    expect(JSON.stringify(uncaught[0])).toContain('bg.js:1');
  });
});
