// wrtui's own version, for the files it writes (session headers, HAR creator). Read from the
// package.json above this module, which works from src/ (tsx, tests) and from the built dist/.
import { readFileSync } from 'node:fs';

let version: string | undefined;

export function wrtuiVersion(): string {
  if (version !== undefined) return version;
  version = '0.0.0';
  for (let url = new URL('.', import.meta.url); ; url = new URL('..', url)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'wrtui' && typeof pkg.version === 'string') return (version = pkg.version);
    } catch {
      // Not here; one folder up.
    }
    if (url.pathname === '/') return version;
  }
}
