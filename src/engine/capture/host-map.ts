// `--resolve HOST[:PORT]:ADDR`: where wrtui connects for a hostname, without /etc/hosts, as curl's
// --resolve and Chromium's --host-resolver-rules do. The request itself is unchanged (its URL, Host
// header and TLS server name keep the hostname); only the address connected to differs. Used for a
// staging server under its production name, and by tests that send tracker hostnames to a local
// origin. Pure parsing and matching here; the transport passes `lookup` to Node's connections.
import { isIP, type LookupFunction } from 'node:net';

export interface HostMapping {
  /** Lower case; `*` alone matches every host, `*.example.com` its subdomains (not example.com itself). */
  host: string;
  /** Only connections to this port; undefined: any. */
  port?: number;
  /** An IPv4 or IPv6 address (without brackets). */
  address: string;
  /** As the user typed it, for messages. */
  text: string;
}

/**
 * One `--resolve` value, or what is wrong with it in words. Forms: `host:addr`, `host:port:addr`;
 * an IPv6 address in brackets (`host:[::1]`); a leading `*.` for every subdomain, `*` for all.
 */
export function parseHostMapping(text: string): HostMapping | string {
  const match = /^([^:[\]\s]+)(?::(\d{1,5}))?:(\[[0-9a-fA-F:.]+\]|[0-9.]+)$/.exec(text);
  if (!match) return 'must be HOST:ADDR or HOST:PORT:ADDR (an IPv6 address in brackets), e.g. "*.example.com:127.0.0.1"';
  const [, rawHost, rawPort, rawAddress] = match as unknown as [string, string, string | undefined, string];
  const host = rawHost.toLowerCase();
  if (host !== '*' && !/^(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/.test(host)) return `"${rawHost}" is not a hostname (a wildcard goes first: *.example.com)`;
  const address = rawAddress.startsWith('[') ? rawAddress.slice(1, -1) : rawAddress;
  if (isIP(address) === 0) return `"${rawAddress}" is not an IP address`;
  const port = rawPort === undefined ? undefined : Number(rawPort);
  if (port !== undefined && (port < 1 || port > 65535)) return `port ${rawPort} is out of range`;
  return { host: host.replace(/\.$/, ''), ...(port !== undefined && { port }), address, text };
}

/** Whether `mapping` covers `hostname` (lower case, no brackets, no trailing dot). */
function covers(mapping: HostMapping, hostname: string): boolean {
  if (mapping.host === '*') return true;
  if (mapping.host.startsWith('*.')) return hostname.endsWith(mapping.host.slice(1));
  return mapping.host === hostname;
}

export class HostMap {
  readonly mappings: readonly HostMapping[];

  /** The first mapping that covers a host wins, as in curl. */
  constructor(mappings: readonly HostMapping[]) {
    this.mappings = mappings;
  }

  get empty(): boolean {
    return this.mappings.length === 0;
  }

  /** The mapping for a connection to `hostname`:`port`, if any. IP literals are never mapped. */
  find(hostname: string, port: number): HostMapping | undefined {
    if (this.mappings.length === 0 || isIP(hostname) !== 0) return undefined;
    const name = hostname.toLowerCase().replace(/\.$/, '');
    return this.mappings.find((mapping) => (mapping.port === undefined || mapping.port === port) && covers(mapping, name));
  }

  /**
   * A `lookup` for Node's net.connect (and so http/https requests) on connections to `port`:
   * mapped hosts answer the mapping's address, others the system's resolver. `onMapped` is told of
   * each mapped lookup (to journal it).
   */
  lookupFor(port: number, fallback: LookupFunction, onMapped?: (hostname: string, mapping: HostMapping) => void): LookupFunction {
    return (hostname, options, callback) => {
      const mapping = this.find(hostname, port);
      if (!mapping) return fallback(hostname, options, callback);
      onMapped?.(hostname, mapping);
      const family = isIP(mapping.address);
      // Node asks for every address (`all`) when it tries IPv4 and IPv6 in turn (autoSelectFamily).
      if ((options as { all?: boolean }).all) (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: mapping.address, family }]);
      else callback(null, mapping.address, family);
    };
  }
}
