// The README is where a newcomer starts: it fits on a few screens, shows the screen first, and
// every page it sends them to (and every link in those pages) exists. Pages under docs/ are all
// findable from the README.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');

/** Markdown links and images outside code: [text](target) and ![alt](target). */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  return new Set([...prose.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => slug((match[1] as string).replace(/`/g, ''))));
}

/** What is wrong with the local links of `file`, one line each. */
function brokenLinks(file: string): string[] {
  const problems: string[] = [];
  for (const target of links(readFileSync(file, 'utf8'))) {
    if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:: not checked offline
    const [path = '', fragment] = target.split('#');
    const resolved = path === '' ? file : resolve(dirname(file), decodeURI(path));
    if (!existsSync(resolved)) {
      problems.push(`${file.slice(ROOT.length + 1)}: ${target} (no such file)`);
      continue;
    }
    if (fragment !== undefined && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(fragment)) {
      problems.push(`${file.slice(ROOT.length + 1)}: ${target} (no such heading)`);
    }
  }
  return problems;
}

const docPages = () => readdirSync(DOCS).filter((name) => name.endsWith('.md')).map((name) => join(DOCS, name));

describe('the README a newcomer reads', () => {
  it('fits on a few screens: 300 lines at most', () => {
    const lines = readFileSync(README, 'utf8').split('\n').length;
    expect(lines, `README.md has ${lines} lines; move reference to docs/`).toBeLessThanOrEqual(300);
  });

  it('starts with the two commands and shows a picture of the screen before the reference', () => {
    const text = readFileSync(README, 'utf8');
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
    expect(firstBlock).toContain('npm ci && npx wrtui');
    expect(firstBlock).toContain('npm ci && npm test');
    const picture = text.indexOf('](docs/screen.svg)');
    expect(picture).toBeGreaterThan(0);
    expect(picture).toBeLessThan(text.indexOf('## Reference'));
    expect(readFileSync(join(DOCS, 'screen.svg'), 'utf8')).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });

  it("every link in the README and in docs/ leads to a file (and heading) that exists", () => {
    const problems = [README, ...docPages()].flatMap(brokenLinks);
    expect(problems).toEqual([]);
  });

  it('every page in docs/ is findable from the README', () => {
    const linked = new Set(links(readFileSync(README, 'utf8')).map((target) => resolve(ROOT, target.split('#')[0] as string)));
    const unlinked = docPages().filter((page) => !linked.has(page)).map((page) => page.slice(ROOT.length + 1));
    expect(unlinked).toEqual([]);
  });

  it('the link checker itself notices a missing page and a missing heading', () => {
    expect(links('see [a](docs/a.md#b) and `[not](code.md)` and ![pic](x.svg)')).toEqual(['docs/a.md#b', 'x.svg']);
    expect(slug('Personas: which browser a rule or extension sees')).toBe('personas-which-browser-a-rule-or-extension-sees');
    expect(anchors('# Title\n## Rules and extensions\n```\n## not a heading\n```').has('rules-and-extensions')).toBe(true);
  });
});
