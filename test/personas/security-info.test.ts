// Firefox's webRequest.getSecurityInfo, field by field against what Firefox 153 answered for the
// same certificates (fixtures/firefox-security-info, recorded with a probe add-on): wrtui builds
// its answer from a Node TLS connection to an origin serving them.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securityInfo, tlsFactsReader, type SecurityInfoOptions } from '../../src/engine/web-request/security-info.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/firefox-security-info/${name}`, import.meta.url));
const firefox = JSON.parse(fixture('firefox-results.json').toString('utf8')) as {
  withCertificateChain: Record<string, unknown>;
  withoutOptions: Record<string, unknown>;
};

let server: https.Server;
let port: number;
beforeAll(async () => {
  server = https.createServer({ cert: fixture('leaf.pem'), key: fixture('leaf.key') }, (_req, res) => res.end('secure'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** wrtui's SecurityInfo for a connection to the origin whose certificate chains to the fixture's root, as Firefox trusted it. */
async function wrtuiAnswer(options: SecurityInfoOptions): Promise<Record<string, unknown>> {
  // The chain is checked against the fixture's root, but not the leaf's dates (it expires in 2027).
  const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca: fixture('ca.pem'), rejectUnauthorized: false });
  await new Promise((resolve) => socket.once('secureConnect', resolve));
  try {
    const facts = tlsFactsReader(socket)();
    expect(socket.authorizationError === null || String(socket.authorizationError) === 'CERT_HAS_EXPIRED').toBe(true);
    return securityInfo({ ...facts, authorized: true }, options, []);
  } finally {
    socket.destroy();
  }
}

/** What wrtui cannot know (docs/personas.md, firefox persona): the handshake's signature scheme. */
function withoutUnknowable(info: Record<string, unknown>): Record<string, unknown> {
  const { signatureSchemeName: _unknowable, ...rest } = info;
  return rest;
}

describe("getSecurityInfo answers as Firefox 153 did for the same certificates", () => {
  it('with { certificateChain: true }: state, protocol, cipher, key exchange, the server certificate and its root, fingerprints, serials, SPKI digests', async () => {
    expect(await wrtuiAnswer({ certificateChain: true })).toEqual(withoutUnknowable(firefox.withCertificateChain));
  });

  it('with no options: the server certificate alone', async () => {
    expect(await wrtuiAnswer({})).toEqual(withoutUnknowable(firefox.withoutOptions));
  });

  it('over plain HTTP, or before any response: { state: "insecure" } and nothing else', () => {
    expect(securityInfo(undefined, { certificateChain: true }, [])).toEqual({ state: 'insecure' });
  });
});
