// A small real HTTP proxy for tests of --upstream-proxy: it wants Basic credentials, opens CONNECT
// tunnels and forwards absolute-form requests, and records what it was asked.
import http from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export const PROXY_USER = 'alice';
export const PROXY_PASSWORD = 's3cret-pa55';

/** A small real proxy that wants Basic credentials: CONNECT tunnels and absolute-form requests. */
export interface AuthProxy {
  port: number;
  /** What it was asked, in order: `CONNECT host:port` or `GET http://…`, and whether the credentials were right. */
  asked: { line: string; authorized: boolean; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startAuthProxy(): Promise<AuthProxy> {
  const expected = `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`;
  const asked: AuthProxy['asked'] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const authorized = req.headers['proxy-authorization'] === expected;
    asked.push({ line: `${req.method} ${req.url}`, authorized, headers: req.headers });
    if (!authorized) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="corp"' }).end();
      return;
    }
    const target = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: target.pathname + target.search, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: Socket, head: Buffer) => {
    const authorized = req.headers['proxy-authorization'] === expected;
    asked.push({ line: `CONNECT ${req.url}`, authorized, headers: req.headers });
    client.on('error', () => client.destroy());
    if (!authorized) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect({ host, port: Number(port) }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    asked,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
