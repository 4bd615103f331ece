// --resolve: a hostname is connected to at the address the user names, the request unchanged (its
// URL, Host header and TLS server name keep the name), as curl's --resolve does.
import { generateCACertificate } from 'mockttp';
import { getCA } from 'mockttp/dist/util/certificates';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostMap, parseHostMapping, type HostMapping } from '../../src/engine/capture/host-map.js';
import { checkArguments, UsageError } from '../../src/app/cli-flags.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const mapping = (text: string) => parseHostMapping(text) as HostMapping;

describe('a --resolve value', () => {
  it('is HOST:ADDR or HOST:PORT:ADDR, IPv6 in brackets, wildcards first', () => {
    expect(parseHostMapping('api.example.com:127.0.0.1')).toEqual({ host: 'api.example.com', address: '127.0.0.1', text: 'api.example.com:127.0.0.1' });
    expect(parseHostMapping('API.Example.com:8443:[::1]')).toEqual({ host: 'api.example.com', port: 8443, address: '::1', text: 'API.Example.com:8443:[::1]' });
    expect(mapping('*.doubleclick.net:127.0.0.1').host).toBe('*.doubleclick.net');
    expect(mapping('*:127.0.0.1').host).toBe('*');
  });

  it('says what is wrong with a value that is not one, and the CLI stops on it', () => {
    expect(parseHostMapping('example.com')).toMatch(/must be HOST:ADDR or HOST:PORT:ADDR/);
    expect(parseHostMapping('example.com:999.1.1.1')).toBe('"999.1.1.1" is not an IP address');
    expect(parseHostMapping('example.com:70000:127.0.0.1')).toBe('port 70000 is out of range');
    expect(parseHostMapping('ex*ample.com:127.0.0.1')).toMatch(/is not a hostname/);
    expect(() => checkArguments(['--resolve', 'example.com'], 'headless')).toThrow(UsageError);
    expect(() => checkArguments(['--resolve', 'a.test:127.0.0.1', '--resolve', '*.b.test:127.0.0.2'], 'headless')).not.toThrow();
  });
});

describe('HostMap.find', () => {
  const map = new HostMap([mapping('api.test:8443:127.0.0.2'), mapping('*.ads.test:127.0.0.3'), mapping('api.test:127.0.0.4')]);
  it('matches a name (any case, a trailing dot), a port when the mapping names one, a wildcard\'s subdomains only; the first that covers wins', () => {
    expect(map.find('API.test.', 8443)?.address).toBe('127.0.0.2');
    expect(map.find('api.test', 443)?.address).toBe('127.0.0.4');
    expect(map.find('x.y.ads.test', 80)?.address).toBe('127.0.0.3');
    expect(map.find('ads.test', 80)).toBeUndefined();
    expect(map.find('other.test', 80)).toBeUndefined();
  });
  it('never maps an IP literal', () => {
    expect(new HostMap([mapping('*:127.0.0.9')]).find('10.0.0.1', 80)).toBeUndefined();
  });
});

describe('through the proxy', () => {
  let harness: ProxyHarness;
  let plain: Origin;
  let secure: Origin;
  beforeAll(async () => {
    const root = await generateCACertificate({ subject: { commonName: 'wrtui --resolve test root' } });
    const leaf = await (await getCA({ cert: root.cert, key: root.key })).generateCertificate('www.tracker.test');
    plain = await startOrigin((req, res) => res.end(`plain saw ${req.headers.host}`));
    secure = await startOrigin((req, res) => res.end(`secure saw ${req.headers.host}`), { tls: { ...leaf, hostname: 'www.tracker.test' } });
    harness = await startProxyHarness({ proxy: { hostMap: new HostMap([mapping('*.tracker.test:127.0.0.1')]), insecureUpstreamHosts: ['www.tracker.test'] } });
  });
  afterAll(async () => {
    await harness?.close();
    await plain?.close();
    await secure?.close();
  });

  it('an http request to a mapped name reaches the address, with its own Host; the journal says so once and the request shows the ip', async () => {
    for (let i = 0; i < 2; i++) {
      const response = await harness.fetch(`http://www.tracker.test:${plain.port}/pixel.gif`);
      expect(await response.body.text()).toBe(`plain saw www.tracker.test:${plain.port}`);
    }
    const told = harness.entries.filter((entry) => entry.kind === 'log' && entry.message.includes('--resolve *.tracker.test:127.0.0.1'));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ message: `www.tracker.test:${plain.port} is connected to at 127.0.0.1 (--resolve *.tracker.test:127.0.0.1); the request keeps its URL, Host and TLS name` });
    const completed = harness.webRequestEntries((entry) => entry.event === 'onCompleted' && entry.details.url.includes('www.tracker.test'));
    expect(completed[0]!.details).toMatchObject({ ip: '127.0.0.1' });
  });

  it('an https request (a CONNECT tunnel) to a mapped name: the tunnel is granted and TLS goes to the address with the name as SNI', async () => {
    const response = await harness.fetch(`https://www.tracker.test:${secure.port}/script.js`);
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe(`secure saw www.tracker.test:${secure.port}`);
  });
});
