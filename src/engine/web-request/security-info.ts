// Firefox's webRequest.getSecurityInfo: what the connection to the origin was, in the shape of
// Firefox's SecurityInfo (its SecurityInfo.sys.mjs read on 2026-11-25): state, protocolVersion,
// cipherSuite, secretKeyLength, keaGroupName, the server's certificate (or the chain) with
// subject, issuer, validity, fingerprints, serial number, SPKI digest and optionally the DER.
// The facts come from the upstream TLS socket, read only when an extension asks.
import { X509Certificate, createHash } from 'node:crypto';
import { rootCertificates, type DetailedPeerCertificate, type TLSSocket } from 'node:tls';
import { getHeader } from '../headers.js';
import type { HttpHeaders } from '../types.js';

/** What wrtui knows of a response's TLS connection, read from its socket when asked. */
export interface TlsFacts {
  protocol: string | null;
  /** IETF name (TLS_AES_128_GCM_SHA256), or OpenSSL's when Node has no IETF name. */
  cipherSuite: string;
  /** OpenSSL's name of the key exchange group (X25519, prime256v1), when ephemeral. */
  keyExchangeGroup: string | undefined;
  /** The certificate verified against the trust store (false: an --insecure-upstream host). */
  authorized: boolean;
  /** The certificates the connection showed, the server's first, DER. */
  chain: Buffer[];
}

export interface SecurityInfoOptions {
  certificateChain?: boolean;
  rawDER?: boolean;
}

/** A function reading `socket`'s facts: cheap to keep per response, costly only when called. */
export function tlsFactsReader(socket: TLSSocket): () => TlsFacts {
  let facts: TlsFacts | undefined;
  return () => {
    if (facts) return facts;
    const cipher = socket.getCipher() as { name: string; standardName?: string } | undefined;
    const ephemeral = socket.getEphemeralKeyInfo() as { name?: string } | null;
    facts = {
      protocol: socket.getProtocol(),
      cipherSuite: cipher?.standardName ?? cipher?.name ?? 'unknown',
      keyExchangeGroup: ephemeral?.name,
      authorized: socket.authorized,
      chain: chainOf(socket.getPeerCertificate(true)),
    };
    return facts;
  };
}

function chainOf(leaf: DetailedPeerCertificate | undefined): Buffer[] {
  const chain: Buffer[] = [];
  const seen = new Set<DetailedPeerCertificate>();
  for (let cert = leaf; cert?.raw && !seen.has(cert); cert = cert.issuerCertificate) {
    seen.add(cert);
    chain.push(cert.raw);
  }
  return chain;
}

/**
 * SecurityInfo as Firefox returns it. `facts` undefined: a plain-HTTP request (or no response
 * yet): only `state: "insecure"`, as Firefox answers for a channel without security info.
 */
export function securityInfo(facts: TlsFacts | undefined, options: SecurityInfoOptions, responseHeaders: HttpHeaders | undefined): Record<string, unknown> {
  if (!facts) return { state: 'insecure' };
  const chain = options.certificateChain ? facts.chain : facts.chain.slice(0, 1);
  const info: Record<string, unknown> = {
    state: 'secure',
    cipherSuite: facts.cipherSuite,
    secretKeyLength: secretKeyLength(facts.cipherSuite),
  };
  const group = keaGroupName(facts.keyExchangeGroup);
  if (group) info.keaGroupName = group;
  if (!facts.authorized) {
    // Firefox with a certificate exception: secure, marked untrusted.
    info.overridableErrorCategory = 'trust_error';
    info.isUntrusted = true;
  }
  info.isExtendedValidation = false;
  info.certificateTransparencyStatus = 'not_applicable';
  info.protocolVersion = facts.protocol && /^TLSv1(\.[123])?$/.test(facts.protocol) ? facts.protocol : 'unknown';
  info.certificates = chain.map((der, index) => certificateInfo(der, options.certificateChain === true && index === chain.length - 1 && index > 0, options));
  // wrtui keeps no HSTS list: the response's own Strict-Transport-Security header answers.
  info.hsts = responseHeaders ? getHeader(responseHeaders, 'strict-transport-security') !== undefined : false;
  info.hpkp = false;
  info.usedEch = false;
  info.usedDelegatedCredentials = false;
  info.usedOcsp = false;
  info.usedPrivateDns = false;
  return info;
}

function certificateInfo(der: Buffer, mayBeRoot: boolean, options: SecurityInfoOptions): Record<string, unknown> {
  const cert = new X509Certificate(der);
  const info: Record<string, unknown> = {
    subject: distinguishedName(cert.subject),
    issuer: distinguishedName(cert.issuer),
    validity: { start: Date.parse(cert.validFrom) || 0, end: Date.parse(cert.validTo) || 0 },
    fingerprint: { sha1: cert.fingerprint, sha256: cert.fingerprint256 },
    serialNumber: colonHex(cert.serialNumber),
    isBuiltInRoot: mayBeRoot && builtInRoots().has(cert.fingerprint256),
    subjectPublicKeyInfoDigest: { sha256: createHash('sha256').update(cert.publicKey.export({ type: 'spki', format: 'der' })).digest('base64') },
  };
  if (options.rawDER) info.rawDER = [...der];
  return info;
}

/** Node writes a DN one RDN per line, country first; Firefox (NSS) one line, most specific first. */
function distinguishedName(text: string): string {
  return text.split('\n').filter(Boolean).reverse().join(',');
}

/** "0A1B2C" → "0A:1B:2C", as Firefox shows serial numbers. */
function colonHex(hex: string): string {
  const even = hex.length % 2 ? `0${hex}` : hex;
  return even.toUpperCase().match(/../g)?.join(':') ?? '';
}

function secretKeyLength(cipherSuite: string): number {
  if (/AES_256|AES256|CHACHA20/i.test(cipherSuite)) return 256;
  if (/AES_128|AES128/i.test(cipherSuite)) return 128;
  return 0;
}

const GROUP_NAMES: Record<string, string> = { X25519: 'x25519', X448: 'x448', prime256v1: 'P256', secp384r1: 'P384', secp521r1: 'P521' };

function keaGroupName(group: string | undefined): string | undefined {
  return group === undefined ? undefined : (GROUP_NAMES[group] ?? group);
}

let roots: Set<string> | undefined;
/** The SHA-256 fingerprints of Node's bundled roots: what "built in" means here. */
function builtInRoots(): Set<string> {
  roots ??= new Set(rootCertificates.map((pem) => new X509Certificate(pem).fingerprint256));
  return roots;
}
