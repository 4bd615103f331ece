// The page the persona differential tests browse (chromium-differential, firefox-differential):
// an image, an iframe with an image, a beacon, a POST, a cross-origin PUT (with its preflight) and a
// redirect the page does not follow, each made from a script after load, so that none races the
// document's commit (Chromium reports a preload-scanned image with an empty documentLifecycle).
import type { IncomingMessage, ServerResponse } from 'node:http';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/** The page; `finish` is the script that says it is done (a title, a request). */
export const probePage = (port: number, finish: string) => `<!doctype html><title>probe</title><script>
addEventListener('load', () => setTimeout(async () => {
  const img = new Image(); img.src = '/probe/img.png'; document.body.append(img);
  await new Promise((r) => { img.onload = img.onerror = r; });
  const frame = document.createElement('iframe'); frame.src = '/probe/frame'; document.body.append(frame);
  await new Promise((r) => { frame.onload = r; });
  navigator.sendBeacon('/probe/beacon', 'hi');
  await fetch('/probe/post', { method: 'POST', body: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  await fetch('http://localhost:${port}/probe/cors', { method: 'PUT', headers: { 'x-custom': '1' } }).catch(() => {});
  await fetch('/probe/manual', { redirect: 'manual' });
  ${finish}
}, 50));
</script><body></body>`;

/** Answers the page's requests (/probe/page serves `page`); false for any other URL. */
export function answerProbe(req: IncomingMessage, res: ServerResponse, page: string): boolean {
  const url = req.url ?? '';
  if (url === '/probe/page') res.writeHead(200, { 'Content-Type': 'text/html', 'Set-Cookie': 'a=1; Path=/' }).end(page);
  else if (url === '/probe/frame') res.writeHead(200, { 'Content-Type': 'text/html' }).end('<img src="/probe/inframe.png">');
  else if (url.startsWith('/probe/') && url.endsWith('.png')) res.writeHead(200, { 'Content-Type': 'image/png' }).end(PNG);
  else if (url === '/probe/manual') res.writeHead(302, { Location: '/probe/never' }).end();
  else if (url === '/probe/cors') res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'x-custom', 'Access-Control-Allow-Methods': 'PUT' }).end('ok');
  else return false;
  return true;
}
