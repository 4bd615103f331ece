import { execFile } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { access, chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateCACertificate, generateSPKIFingerprint, getLocal, type Mockttp } from 'mockttp';
import { getCA } from 'mockttp/dist/util/certificates';
import { ProxyAgent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CA_CERT_FILE,
  CA_KEY_FILE,
  describeCertificateAuthority,
  loadOrCreateCertificateAuthority,
  type CertificateAuthority,
} from '../../src/engine/capture/certificate-authority.js';

const scratchDirs: string[] = [];
async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wrtui-ca-'));
  scratchDirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(scratchDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe('loadOrCreateCertificateAuthority: made once per state directory', () => {
  it('creates the state directory (0700), ca.pem and ca.key (0600) on first use', async () => {
    const stateDir = join(await scratchDir(), 'state', 'nested');
    const ca = await loadOrCreateCertificateAuthority(stateDir);

    expect(ca.created).toBe(true);
    expect(ca.warnings).toEqual([]);
    expect(ca.certPath).toBe(join(stateDir, CA_CERT_FILE));
    expect(ca.keyPath).toBe(join(stateDir, CA_KEY_FILE));
    expect(await modeOf(stateDir)).toBe(0o700);
    expect(await modeOf(ca.keyPath)).toBe(0o600);
    expect(await readFile(ca.certPath, 'utf8')).toBe(ca.cert);
    expect(await readFile(ca.keyPath, 'utf8')).toBe(ca.key);
    // No temporary files left behind.
    expect((await readdir(stateDir)).sort()).toEqual([CA_KEY_FILE, CA_CERT_FILE].sort());
  });

  it('is a CA certificate that says wrtui, matches its key, and lasts as long as mockttp makes it (10 years)', async () => {
    const ca = await loadOrCreateCertificateAuthority(await scratchDir());
    const certificate = new X509Certificate(ca.cert);
    expect(certificate.ca).toBe(true);
    expect(certificate.subject).toContain(`CN=wrtui CA (${hostname()})`);
    expect(certificate.subject).toContain('O=wrtui');
    expect(certificate.checkPrivateKey(createPrivateKey(ca.key))).toBe(true);
    const years = (Date.parse(certificate.validTo) - Date.now()) / (365.25 * 86_400_000);
    expect(years).toBeGreaterThan(9.9);
    expect(years).toBeLessThan(10.1);
    expect(ca.cert.endsWith('\n')).toBe(true); // safe to concatenate into a bundle
  });

  it('gives the SPKI fingerprint mockttp computes (what Chromium’s --ignore-certificate-errors-spki-list takes)', async () => {
    const ca = await loadOrCreateCertificateAuthority(await scratchDir());
    expect(ca.spkiFingerprint).toBe(await generateSPKIFingerprint(ca.cert));
    expect(ca.spkiFingerprint).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it('reuses the same CA on later runs', async () => {
    const stateDir = await scratchDir();
    const first = await loadOrCreateCertificateAuthority(stateDir);
    const second = await loadOrCreateCertificateAuthority(stateDir);
    expect(second.created).toBe(false);
    expect(second.warnings).toEqual([]);
    expect(second.cert).toBe(first.cert);
    expect(second.key).toBe(first.key);
    expect(second.spkiFingerprint).toBe(first.spkiFingerprint);
  });

  it('two processes starting together end up with one CA', async () => {
    const stateDir = await scratchDir();
    const [a, b] = await Promise.all([loadOrCreateCertificateAuthority(stateDir), loadOrCreateCertificateAuthority(stateDir)]);
    expect(a.cert).toBe(b.cert);
    expect(a.key).toBe(b.key);
    expect(new X509Certificate(a.cert).checkPrivateKey(createPrivateKey(b.key))).toBe(true);
    expect([a.created, b.created].filter(Boolean).length).toBeLessThanOrEqual(1);
  });

  it('tightens a key readable by others to 0600 and says so', async () => {
    const stateDir = await scratchDir();
    const { keyPath } = await loadOrCreateCertificateAuthority(stateDir);
    await chmod(keyPath, 0o644);
    const ca = await loadOrCreateCertificateAuthority(stateDir);
    expect(await modeOf(keyPath)).toBe(0o600);
    expect(ca.warnings).toHaveLength(1);
    expect(ca.warnings[0]).toContain(keyPath);
    expect(ca.warnings[0]).toContain('0644');
    expect(ca.warnings[0]).toContain('0600');
  });

  it('leaves an existing state directory’s mode alone', async () => {
    const stateDir = join(await scratchDir(), 'shared');
    await mkdir(stateDir, { mode: 0o755 });
    await chmod(stateDir, 0o755);
    await loadOrCreateCertificateAuthority(stateDir);
    expect(await modeOf(stateDir)).toBe(0o755);
  });
});

describe('loadOrCreateCertificateAuthority: never silently replaces a CA clients may trust', () => {
  it('refuses a certificate without its key', async () => {
    const stateDir = await scratchDir();
    const { keyPath } = await loadOrCreateCertificateAuthority(stateDir);
    await rm(keyPath);
    await expect(loadOrCreateCertificateAuthority(stateDir)).rejects.toThrow(/ca\.pem but not .*ca\.key/);
  });

  it('refuses a key without its certificate', async () => {
    const stateDir = await scratchDir();
    const { certPath } = await loadOrCreateCertificateAuthority(stateDir);
    await rm(certPath);
    await expect(loadOrCreateCertificateAuthority(stateDir)).rejects.toThrow(/ca\.key but not .*ca\.pem/);
  });

  it('refuses a key that belongs to another certificate', async () => {
    const stateDir = await scratchDir();
    const { keyPath } = await loadOrCreateCertificateAuthority(stateDir);
    const other = await generateCACertificate();
    await writeFile(keyPath, other.key, { mode: 0o600 });
    await expect(loadOrCreateCertificateAuthority(stateDir)).rejects.toThrow(/does not belong/);
  });

  it('refuses a file that is not a certificate', async () => {
    const stateDir = await scratchDir();
    const { certPath } = await loadOrCreateCertificateAuthority(stateDir);
    await writeFile(certPath, 'not a certificate\n');
    await expect(loadOrCreateCertificateAuthority(stateDir)).rejects.toThrow(/not a PEM certificate/);
  });
});

describe('describeCertificateAuthority: what `wrtui ca` prints', () => {
  let ca: CertificateAuthority;
  let text: string;
  beforeAll(async () => {
    ca = await loadOrCreateCertificateAuthority(await scratchDir());
    text = describeCertificateAuthority(ca, { proxyUrl: 'http://127.0.0.1:8080' });
  });

  it('says where the certificate is', () => {
    expect(text).toContain(`wrtui CA certificate: ${ca.certPath}`);
  });

  it('tells curl to trust it and to use the proxy', () => {
    expect(text).toContain(`curl --cacert ${ca.certPath} -x http://127.0.0.1:8080 `);
  });

  it('tells Node to trust it with NODE_EXTRA_CA_CERTS', () => {
    expect(text).toContain(`NODE_EXTRA_CA_CERTS=${ca.certPath} `);
  });

  it('gives Chromium the proxy and the SPKI fingerprint (with the --user-data-dir the flag requires)', () => {
    expect(text).toContain(`--proxy-server=http://127.0.0.1:8080 --ignore-certificate-errors-spki-list=${ca.spkiFingerprint}`);
    expect(text).toContain('--user-data-dir=');
  });

  it('explains the Firefox import and the Debian system store', () => {
    expect(text).toMatch(/Firefox[\s\S]*Certificates[\s\S]*Import/);
    expect(text).toContain('HTTP proxy 127.0.0.1, port 8080');
    expect(text).toContain(`sudo cp ${ca.certPath} /usr/local/share/ca-certificates/wrtui.crt`);
    expect(text).toContain('sudo update-ca-certificates');
  });

  it('never prints the private key, even when handed the whole CA', () => {
    expect(text).not.toContain('PRIVATE KEY');
    const keyBody = ca.key.split('\n').filter((line) => line && !line.startsWith('-----'));
    for (const line of keyBody) expect(text).not.toContain(line);
  });

  it('quotes a path the shell would split', () => {
    const spaced = describeCertificateAuthority(
      { certPath: "/home/me/My Projects/it's/.wrtui/ca.pem", spkiFingerprint: ca.spkiFingerprint },
      { proxyUrl: 'http://127.0.0.1:9000' },
    );
    expect(spaced).toContain(`--cacert '/home/me/My Projects/it'\\''s/.wrtui/ca.pem' -x http://127.0.0.1:9000`);
  });
});

describe('a mockttp proxy signing with this CA: clients that trust it validate intercepted HTTPS', () => {
  let ca: CertificateAuthority;
  let proxy: Mockttp;
  let origin: https.Server;
  let originPort: number;
  const agents: ProxyAgent[] = [];

  beforeAll(async () => {
    ca = await loadOrCreateCertificateAuthority(await scratchDir());

    // A local HTTPS origin with a certificate from its own, unrelated CA, which only the proxy trusts.
    const originRoot = await generateCACertificate({ subject: { commonName: 'origin test root' } });
    const originLeaf = await (await getCA({ cert: originRoot.cert, key: originRoot.key })).generateCertificate('localhost');
    origin = https.createServer({ cert: originLeaf.cert, key: originLeaf.key }, (_req, res) => res.end('hello from the origin'));
    await new Promise<void>((done) => origin.listen(0, '127.0.0.1', done));
    originPort = (origin.address() as AddressInfo).port;

    proxy = getLocal({ recordTraffic: false, https: { certPath: ca.certPath, keyPath: ca.keyPath } });
    await proxy.start();
    await proxy.forAnyRequest().always().thenPassThrough({ additionalTrustedCAs: [{ cert: originRoot.cert }] });
  }, 30_000);

  afterEach(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.close()));
  });

  afterAll(async () => {
    await proxy?.stop();
    await new Promise((done) => origin?.close(done));
  });

  function viaProxy(trusted: string | undefined): ProxyAgent {
    const agent = new ProxyAgent({ uri: `http://127.0.0.1:${proxy.port}`, requestTls: trusted === undefined ? {} : { ca: trusted } });
    agents.push(agent);
    return agent;
  }

  it('an undici client trusting the CA gets the origin’s answer', async () => {
    const response = await request(`https://localhost:${originPort}/`, { dispatcher: viaProxy(ca.cert), headersTimeout: 10_000 });
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('hello from the origin');
  });

  it('a client that does not trust it refuses the intercepted connection', async () => {
    const failure = await request(`https://localhost:${originPort}/`, { dispatcher: viaProxy(undefined), headersTimeout: 10_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: expect.stringMatching(/^(SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)$/) });
  });

  it('curl, run as `wrtui ca` says, validates it too', async () => {
    const curl = await access('/usr/bin/curl').then(() => '/usr/bin/curl', () => undefined);
    if (curl === undefined) return; // curl is not installed here: nothing to check
    const advice = describeCertificateAuthority(ca, { proxyUrl: `http://127.0.0.1:${proxy.port}` });
    const line = advice.split('\n').find((l) => l.trim().startsWith('curl --cacert'))!;
    const args = line.trim().split(/\s+/).slice(1, -1); // drop "curl" and the example URL
    // -q: ignore any ~/.curlrc; -s: quiet; --max-time: bounded.
    const { stdout } = await promisify(execFile)(curl, ['-q', '-s', '--max-time', '10', ...args, `https://localhost:${originPort}/`], { timeout: 15_000 });
    expect(stdout).toBe('hello from the origin');
  }, 20_000);
});
