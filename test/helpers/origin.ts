// Origin servers for tests, on 127.0.0.1, closed after each test file.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Origin {
  url: string;
  port: number;
  /** Every request the origin received, with its headers as sent. */
  received: { method: string; url: string; headers: http.IncomingHttpHeaders; rawHeaders: string[]; body: Buffer }[];
  close(): Promise<void>;
}

export type OriginHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;

export async function startOrigin(handler: OriginHandler = (_req, res) => res.end('origin says hi')): Promise<Origin> {
  const received: Origin['received'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
