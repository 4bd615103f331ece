// Precedence among rules through the host: manifest `precedence` first (higher wins), then file
// name (the later file wins); the engine journals which verdict was applied and which ignored.
import { afterEach, describe, expect, it } from 'vitest';
import type { ListenerOutcome } from '../../src/engine/journal.js';
import { openRuleFolder, ruleAction, ruleSource, type RuleFolder } from './rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

/** An example-like rule redirecting every image of shop.example to its own placeholder. */
function placeholderRule(name: string, placeholder: string, precedence?: number): string {
  return ruleSource(
    name,
    `  chrome.webRequest.onBeforeRequest.addListener(() => ({ redirectUrl: 'https://${placeholder}/placeholder.png' }), { urls: ['*://shop.example/*'], types: ['image'] }, ['blocking']);`,
    { permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['*://shop.example/*'], ...(precedence !== undefined && { precedence }) },
  );
}

async function outcomesForImage(): Promise<ListenerOutcome[]> {
  const since = folder!.mark();
  await folder!.run('https://shop.example/product.png', { type: 'image' });
  const entry = folder!.entries.slice(since).find((e) => e.kind === 'webRequest' && e.event === 'onBeforeRequest');
  return entry?.kind === 'webRequest' ? entry.outcomes : [];
}

describe('precedence', () => {
  it('without manifest precedence, the file that sorts later wins; the loser is journaled as ignored, with why', async () => {
    folder = await openRuleFolder({ files: { '10-grey.ts': placeholderRule('grey', 'grey.example'), '20-pink.ts': placeholderRule('pink', 'pink.example') } });
    expect(folder.host.rules().map((rule) => [rule.name, rule.precedence])).toEqual([['grey', 1], ['pink', 2]]);
    const outcomes = await outcomesForImage();
    expect(outcomes).toEqual([
      expect.objectContaining({ owner: 'pink', status: 'applied', response: { redirectUrl: 'https://pink.example/placeholder.png' } }),
      expect.objectContaining({ owner: 'grey', status: 'ignored', reason: "conflicts with pink's redirect to https://pink.example/placeholder.png" }),
    ]);
  });

  it('a manifest precedence outranks file order', async () => {
    folder = await openRuleFolder({ files: { '10-grey.ts': placeholderRule('grey', 'grey.example', 5), '20-pink.ts': placeholderRule('pink', 'pink.example') } });
    expect(folder.host.rules().map((rule) => [rule.name, rule.precedence])).toEqual([['grey', 2], ['pink', 1]]);
    expect((await outcomesForImage()).map((o) => [o.owner, o.status])).toEqual([['grey', 'applied'], ['pink', 'ignored']]);
  });

  it('reloading the losing rule does not make it win (a reload is not a reinstall)', async () => {
    folder = await openRuleFolder({ files: { '10-grey.ts': placeholderRule('grey', 'grey.example'), '20-pink.ts': placeholderRule('pink', 'pink.example') } });
    const since = folder.mark();
    await folder.write('10-grey.ts', placeholderRule('grey', 'silver.example'));
    await folder.waitForEntry(ruleAction('grey', 'reloaded'), { since });
    expect(folder.host.rule('grey')?.precedence).toBe(1);
    expect((await outcomesForImage()).map((o) => [o.owner, o.status])).toEqual([['pink', 'applied'], ['grey', 'ignored']]);
  });

  it('a rule added later takes its place by file name, not by arrival', async () => {
    folder = await openRuleFolder({ files: { '20-pink.ts': placeholderRule('pink', 'pink.example') } });
    const since = folder.mark();
    await folder.write('10-grey.ts', placeholderRule('grey', 'grey.example'));
    await folder.waitForEntry(ruleAction('grey', 'loaded'), { since });
    expect(folder.host.rules().map((rule) => [rule.name, rule.precedence])).toEqual([['grey', 1], ['pink', 2]]);
    expect((await outcomesForImage())[0]).toMatchObject({ owner: 'pink', status: 'applied' });
  });

  it('a cancel wins over a higher-precedence redirect, as in Chrome', async () => {
    const cancel = ruleSource('blocker', "  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['*://shop.example/*'] }, ['blocking']);");
    folder = await openRuleFolder({ files: { '10-blocker.ts': cancel, '20-pink.ts': placeholderRule('pink', 'pink.example') } });
    expect((await outcomesForImage()).map((o) => [o.owner, o.status, o.reason])).toEqual([
      ['pink', 'ignored', 'request cancelled by blocker'],
      ['blocker', 'applied', undefined],
    ]);
  });
});
