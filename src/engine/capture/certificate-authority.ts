// The CA wrtui signs its HTTPS interception certificates with: made once per state directory with
// mockttp's generator, kept as `<stateDir>/ca.pem` + `<stateDir>/ca.key`, and reused so that a
// client told to trust it once keeps trusting it. Also the text `wrtui ca` prints.
import { X509Certificate, createPrivateKey, randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { generateCACertificate, generateSPKIFingerprint } from 'mockttp';
import { shellWord } from '../path-text.js';

export const CA_CERT_FILE = 'ca.pem';
export const CA_KEY_FILE = 'ca.key';

const KEY_MODE = 0o600;
// The certificate is public (clients are told to copy it); only the key is secret.
const CERT_MODE = 0o644;
const STATE_DIR_MODE = 0o700;
// Another wrtui creating the CA in the same directory publishes the key, then the certificate a
// moment later: a reader that finds only the key waits this long before calling the pair broken.
const CONCURRENT_CREATION_WAIT_MS = 500;
const EXPIRY_WARNING_DAYS = 30;

export interface CertificateAuthority {
  certPath: string;
  keyPath: string;
  /** PEM certificate. */
  cert: string;
  /** PEM private key (PKCS#8). */
  key: string;
  /** Base64 SHA-256 of the certificate's SubjectPublicKeyInfo, as Chromium's --ignore-certificate-errors-spki-list wants it. */
  spkiFingerprint: string;
  /** True when this call generated the CA. */
  created: boolean;
  /** Things the user should know: permissions that were tightened, an expiry close at hand. */
  warnings: string[];
}

/**
 * The CA in `stateDir`, generated on first use. Refuses to replace a CA it cannot read back
 * (half of the pair missing, unreadable, or a key that does not match the certificate): clients
 * may trust it, and silently minting another would break them in a confusing way.
 */
export async function loadOrCreateCertificateAuthority(stateDir: string): Promise<CertificateAuthority> {
  const dir = resolve(stateDir);
  const certPath = join(dir, CA_CERT_FILE);
  const keyPath = join(dir, CA_KEY_FILE);
  await mkdir(dir, { recursive: true, mode: STATE_DIR_MODE });

  if (!(await exists(certPath)) && !(await exists(keyPath))) {
    const created = await createCertificateAuthority(dir, certPath, keyPath);
    if (created) return created;
    // Lost a race with another process: read what it wrote.
  }
  return loadCertificateAuthority(certPath, keyPath);
}

async function createCertificateAuthority(dir: string, certPath: string, keyPath: string): Promise<CertificateAuthority | undefined> {
  const { cert, key } = await generateCACertificate({
    subject: { commonName: `wrtui CA (${hostname()})`, organizationName: 'wrtui' },
  });
  const certPem = withFinalNewline(cert);
  const keyPem = withFinalNewline(key);

  // Publish the key with link(), which fails if the file exists, so two processes starting
  // together cannot end up with one's key and the other's certificate.
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const keyTemp = join(dir, `.${CA_KEY_FILE}.${suffix}`);
  const certTemp = join(dir, `.${CA_CERT_FILE}.${suffix}`);
  try {
    await writeFile(keyTemp, keyPem, { mode: KEY_MODE, flag: 'wx' });
    await chmod(keyTemp, KEY_MODE); // writeFile's mode is filtered by the umask; make it exact
    await writeFile(certTemp, certPem, { mode: CERT_MODE, flag: 'wx' });
    await chmod(certTemp, CERT_MODE);
    try {
      await link(keyTemp, keyPath);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return undefined;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
      // A file system without hard links: an exclusive create still keeps the first key.
      try {
        await writeFile(keyPath, keyPem, { mode: KEY_MODE, flag: 'wx' });
      } catch (fallbackError) {
        if ((fallbackError as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
        throw fallbackError;
      }
      await chmod(keyPath, KEY_MODE);
    }
    await rename(certTemp, certPath);
  } finally {
    await unlink(keyTemp).catch(() => {});
    await unlink(certTemp).catch(() => {});
  }
  return {
    certPath,
    keyPath,
    cert: certPem,
    key: keyPem,
    spkiFingerprint: await generateSPKIFingerprint(certPem),
    created: true,
    warnings: [],
  };
}

async function loadCertificateAuthority(certPath: string, keyPath: string): Promise<CertificateAuthority> {
  await waitForBoth(certPath, keyPath);
  const warnings: string[] = [];

  const keyMode = (await stat(keyPath)).mode & 0o777;
  if ((keyMode & 0o077) !== 0) {
    await chmod(keyPath, KEY_MODE);
    warnings.push(`${keyPath} was readable by others (mode ${octal(keyMode)}); changed it to ${octal(KEY_MODE)}.`);
  }

  const [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (error) {
    throw new Error(`${certPath} is not a PEM certificate (${(error as Error).message}). Restore it, or delete ${certPath} and ${keyPath} to make a new CA (clients will have to trust the new one).`);
  }
  let keyMatches: boolean;
  try {
    keyMatches = certificate.checkPrivateKey(createPrivateKey(key));
  } catch (error) {
    throw new Error(`${keyPath} is not a PEM private key (${(error as Error).message}). Restore it, or delete ${certPath} and ${keyPath} to make a new CA (clients will have to trust the new one).`);
  }
  if (!keyMatches) {
    throw new Error(`${keyPath} does not belong to the certificate in ${certPath}. Restore the pair, or delete both to make a new CA (clients will have to trust the new one).`);
  }
  if (!certificate.ca) warnings.push(`${certPath} is not a CA certificate: certificates wrtui signs with it will not validate.`);

  const expiresAt = new Date(certificate.validTo);
  const daysLeft = (expiresAt.getTime() - Date.now()) / 86_400_000;
  if (daysLeft <= 0) {
    warnings.push(`The wrtui CA in ${certPath} expired on ${expiresAt.toISOString()}: delete ${certPath} and ${keyPath} to make a new one, then trust it again.`);
  } else if (daysLeft <= EXPIRY_WARNING_DAYS) {
    warnings.push(`The wrtui CA in ${certPath} expires on ${expiresAt.toISOString()}.`);
  }

  return {
    certPath,
    keyPath,
    cert,
    key,
    spkiFingerprint: await generateSPKIFingerprint(cert),
    created: false,
    warnings,
  };
}

async function waitForBoth(certPath: string, keyPath: string): Promise<void> {
  const deadline = Date.now() + CONCURRENT_CREATION_WAIT_MS;
  for (;;) {
    const [haveCert, haveKey] = await Promise.all([exists(certPath), exists(keyPath)]);
    if (haveCert && haveKey) return;
    if (Date.now() >= deadline) {
      const [present, missing] = haveCert ? [certPath, keyPath] : [keyPath, certPath];
      throw new Error(`Found ${present} but not ${missing}. Restore the missing file, or delete ${present} to make a new CA (clients will have to trust the new one).`);
    }
    await new Promise((done) => setTimeout(done, 50));
  }
}

export interface DescribeOptions {
  /** The proxy's address as clients should use it, e.g. http://127.0.0.1:8080. */
  proxyUrl: string;
}

/**
 * What `wrtui ca` prints: where the certificate is and how to make common clients trust it.
 * Takes only the public parts, so the private key cannot end up in the text.
 */
export function describeCertificateAuthority(
  ca: Pick<CertificateAuthority, 'certPath' | 'spkiFingerprint'> & { cert?: string },
  { proxyUrl }: DescribeOptions,
): string {
  const certPath = shellWord(ca.certPath);
  const proxy = new URL(proxyUrl);
  const proxyHost = proxy.hostname.replace(/^\[(.*)\]$/, '$1');
  const proxyPort = proxy.port || (proxy.protocol === 'https:' ? '443' : '80');
  const lines = [`wrtui CA certificate: ${ca.certPath}`];
  if (ca.cert !== undefined) {
    const certificate = new X509Certificate(ca.cert);
    lines.push(`  subject:            ${certificate.subject.replace(/\n/g, ', ')}`);
    lines.push(`  valid until:        ${new Date(certificate.validTo).toISOString()}`);
    lines.push(`  SHA-256:            ${certificate.fingerprint256}`);
  }
  lines.push(
    `  SPKI SHA-256:       ${ca.spkiFingerprint}`,
    '',
    'Anyone holding the private key next to it can intercept the HTTPS traffic of every client that',
    'trusts this certificate: keep the key to yourself, and trust the CA only where you use wrtui.',
    '',
    'curl',
    `  curl --cacert ${certPath} -x ${proxyUrl} https://example.com/`,
    '',
    'Node.js (read at startup; the client must also be told to use the proxy)',
    `  NODE_EXTRA_CA_CERTS=${certPath} node app.js`,
    '',
    'Chromium / Chrome (trusts this key for that run only; the flag needs its own --user-data-dir)',
    `  chromium --proxy-server=${proxyUrl} --ignore-certificate-errors-spki-list=${ca.spkiFingerprint} --user-data-dir=$(mktemp -d)`,
    '',
    'Firefox (has its own certificate store)',
    `  Settings → Privacy & Security → Certificates → View Certificates… → Authorities → Import…`,
    `  choose ${ca.certPath}, tick "Trust this CA to identify websites";`,
    `  Settings → Network Settings → Manual proxy configuration: HTTP proxy ${proxyHost}, port ${proxyPort},`,
    '  "Also use this proxy for HTTPS".',
    '',
    'System-wide (Debian, Ubuntu; other programs using the system store)',
    `  sudo cp ${certPath} /usr/local/share/ca-certificates/wrtui.crt`,
    '  sudo update-ca-certificates',
    '  to undo: sudo rm /usr/local/share/ca-certificates/wrtui.crt && sudo update-ca-certificates --fresh',
  );
  return lines.join('\n') + '\n';
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function withFinalNewline(pem: string): string {
  // mockttp's certificate PEM has none; concatenating it with another PEM would corrupt both.
  return pem.endsWith('\n') ? pem : `${pem}\n`;
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}
