// The two origins the CORS probes fetch from (fixtures/extensions/cors-probe): one the probe has host
// permission for (127.0.0.1) and one it has not (127.0.0.2), each answering a path as its name says
// (CORS headers that allow, refuse, expose; preflights allowed or refused), and what both received.
import type { IncomingMessage } from 'node:http';
import { startOrigin, type Origin } from './origin.js';

export interface CorsOrigins {
  permitted: Origin;
  foreign: Origin;
  /** Where each origin's received list stands now, for receivedSince. */
  marks(): [number, number];
  /**
   * What both received since `since` (a `/report` left out), one line each: origin, method, path,
   * the Cookie apart (which, not where: wrtui's jar adds it last, Firefox puts it after Connection)
   * and the other header lines in order; ports, the build's UA token and the moz-extension UUID named.
   */
  receivedSince(since: [number, number]): string[];
  close(): Promise<void>;
}

/** `onReport`: a probe posted its report to the permitted origin's /report. */
export async function startCorsOrigins(onReport?: (body: Buffer) => void): Promise<CorsOrigins> {
  let foreignUrl = '';
  const permitted = await startOrigin((req, res, body) => {
    if (req.url === '/report') {
      onReport?.(body);
      return res.end();
    }
    if (req.url === '/cors/to-foreign') return res.writeHead(302, { Location: `${foreignUrl}/cors/none-redirected` }).end();
    // A 307 keeps the method and body: the next hop, across origins, needs a preflight there.
    if (req.url === '/cors/to-foreign-preflighted') return res.writeHead(307, { Location: `${foreignUrl}/cors/preflight-ok-redirected` }).end();
    if (req.url === '/cors/to-foreign-refused') return res.writeHead(307, { Location: `${foreignUrl}/cors/preflight-refused-redirected` }).end();
    res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Custom': '1' }).end('secret');
  });
  const foreign = await startOrigin(answerAcrossOrigins, { address: '127.0.0.2' });
  foreignUrl = foreign.url;

  const named = (text: string) =>
    text
      .replaceAll(String(permitted.port), 'PERMITTED_PORT')
      .replaceAll(String(foreign.port), 'FOREIGN_PORT')
      .replaceAll('HeadlessChrome/', 'Chrome/')
      .replace(/moz-extension:\/\/[0-9a-f-]{36}/g, 'moz-extension://<uuid>')
      .replaceAll('gzip, deflate, br, zstd', 'gzip, deflate, br');
  return {
    permitted,
    foreign,
    marks: () => [permitted.received.length, foreign.received.length],
    receivedSince(since) {
      const lines: string[] = [];
      for (const [name, origin, start] of [['permitted', permitted, since[0]], ['foreign', foreign, since[1]]] as const) {
        for (const request of origin.received.slice(start)) {
          if (request.url === '/report') continue;
          const headers: string[] = [];
          let cookie = 'no cookie';
          for (let i = 0; i < request.rawHeaders.length; i += 2) {
            if (request.rawHeaders[i]!.toLowerCase() === 'cookie') cookie = `cookie ${request.rawHeaders[i + 1]}`;
            else headers.push(`${request.rawHeaders[i]!.toLowerCase()}: ${request.rawHeaders[i + 1]}`);
          }
          lines.push(named(`${name} ${request.method} ${request.url} (${cookie}) | ${headers.join(' | ')}`));
        }
      }
      return lines;
    },
    close: async () => {
      await permitted.close();
      await foreign.close();
    },
  };
}

/** The origin without host permission: each path's CORS answer as its name says. */
function answerAcrossOrigins(req: IncomingMessage, res: import('node:http').ServerResponse): void {
  const url = req.url ?? '';
  if (req.method === 'OPTIONS') {
    if (url.startsWith('/cors/preflight-ok')) {
      res.writeHead(204, { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'POST, PUT', 'Access-Control-Allow-Headers': 'content-type, x-probe', ...(url.endsWith('aged') && { 'Access-Control-Max-Age': '60' }) }).end();
    } else res.writeHead(204).end();
    return;
  }
  if (url === '/cors/star-exposed') return void res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': '*', 'X-Custom': '1', 'Set-Cookie': 'hidden=1' }).end('star');
  if (url.startsWith('/cors/star')) return void res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*', 'X-Custom': '1', 'Cache-Control': 'no-store' }).end('star');
  if (url === '/cors/exposed') return void res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'X-Custom', 'X-Custom': '1', 'X-Other': '2' }).end('exposed');
  if (url.startsWith('/cors/echo')) {
    res
      .writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': req.headers.origin ?? 'null', 'Access-Control-Allow-Credentials': 'true', Vary: 'Origin', 'Set-Cookie': `f${url.length}=1; Path=/` })
      .end(`echo ${req.headers.cookie ?? 'no cookie'}`);
    return;
  }
  if (url.startsWith('/cors/preflight-ok')) return void res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' }).end('done');
  res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Custom': '1' }).end('secret');
}
