// Origin servers for tests, on 127.0.0.1, closed after each test file.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export interface Origin {
  url: string;
  port: number;
  /** Every request the origin received, with its headers as sent. */
  received: { method: string; url: string; headers: http.IncomingHttpHeaders; rawHeaders: string[]; body: Buffer }[];
  close(): Promise<void>;
}

export type OriginHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;

export interface OriginOptions {
  /** Serve https with this certificate; the origin's URL then names `hostname`. */
  tls?: { cert: string; key: string; hostname: string };
  /** The loopback address to listen on (127.0.0.1; another, such as 127.0.0.2, is another origin). */
  address?: string;
}

export async function startOrigin(handler: OriginHandler = (_req, res) => res.end('origin says hi'), options: OriginOptions = {}): Promise<Origin> {
  const received: Origin['received'] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body });
      handler(req, res, body);
    });
  };
  const server = options.tls ? https.createServer({ cert: options.tls.cert, key: options.tls.key }, listener) : http.createServer(listener);
  const address = options.address ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: options.tls ? `https://${options.tls.hostname}:${port}` : `http://${address}:${port}`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
