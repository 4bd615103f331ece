// Certificates for hosts a client names by IP address. mockttp issues a leaf per TLS server name
// (SNI) with a DNS name only; a client connecting to https://127.0.0.1:9443/ sends no SNI (RFC 6066
// allows names only), gets mockttp's default certificate for "localhost", and refuses it ("no
// alternative certificate subject name matches"). wrtui issues that default certificate itself,
// signed by its CA: DNS:localhost plus an IP SAN for every IP address a client has tunnelled to.
import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALGORITHM = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;
const LIFESPAN_DAYS = 365;

let leafKeys: Promise<webcrypto.CryptoKeyPair> | undefined;

export interface IssuedCertificate {
  cert: string;
  key: string;
}

/** A leaf for `names` (DNS names and IP addresses), signed by the CA (PEM certificate and PKCS#8 key). */
export async function issueCertificate(ca: { cert: string; key: string }, names: readonly string[]): Promise<IssuedCertificate> {
  leafKeys ??= webcrypto.subtle.generateKey({ ...ALGORITHM, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;
  const keys = await leafKeys;
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await webcrypto.subtle.importKey('pkcs8', pemBody(ca.key), ALGORITHM, false, ['sign']);
  const notBefore = new Date(Date.now() - 24 * 3600_000);
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1'),
    subject: `C=XX, CN=${names[0] ?? 'localhost'}`,
    issuer: caCert.subject,
    notBefore,
    notAfter: new Date(notBefore.getTime() + LIFESPAN_DAYS * 24 * 3600_000),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey as unknown as Parameters<typeof x509.X509CertificateGenerator.create>[0]['publicKey'],
    signingKey: caKey as unknown as x509.X509CertificateCreateWithKeyParams['signingKey'],
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension(['1.3.6.1.5.5.7.3.1'], false),
      new x509.SubjectAlternativeNameExtension(names.map((name) => (isIP(name) ? { type: 'ip' as const, value: name } : { type: 'dns' as const, value: name })), false),
      await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: certificate.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

function pemBody(pem: string): ArrayBuffer {
  const base64 = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const bytes = Buffer.from(base64, 'base64');
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}
