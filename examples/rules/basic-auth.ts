// Answers the HTTP login prompt (Basic or Digest) of local development servers, so tools behind
// wrtui never stop at a 401. Credentials per host; a wrong password is asked again at most 3 times.
import type { AuthCredentials, RuleContext, RuleManifest } from 'wrtui/rules';

const CREDENTIALS: Record<string, AuthCredentials> = {
  '127.0.0.1': { username: 'dev', password: 'dev' },
  localhost: { username: 'dev', password: 'dev' },
};

export const manifest = {
  name: 'basic-auth',
  permissions: ['webRequest', 'webRequestBlocking'],
  host_permissions: ['http://127.0.0.1/*', 'http://localhost/*'],
  dryRun: true,
} as const satisfies RuleManifest;

export default function background({ chrome }: RuleContext<typeof manifest>): void {
  chrome.webRequest.onAuthRequired.addListener(
    (details) => {
      const credentials = details.isProxy ? undefined : CREDENTIALS[details.challenger.host];
      return credentials && { authCredentials: credentials };
    },
    { urls: ['http://127.0.0.1/*', 'http://localhost/*'] },
    ['blocking'],
  );
}
