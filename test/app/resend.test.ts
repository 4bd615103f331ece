// The text a user edits before resending a request, and parsing it back: what they see is what
// is sent, and a mistake is named in one line (nothing is sent then).
import { describe, expect, it } from 'vitest';
import { requestAsText, requestFromText } from '../../src/app/resend.js';

describe('edit-then-resend text', () => {
  it('method and URL, headers (the connection\'s own left out), a blank line, the body; back again unchanged', () => {
    const request = {
      method: 'POST',
      url: 'https://api.test/items?x=1',
      headers: [
        { name: 'Host', value: 'api.test' },
        { name: 'Content-Type', value: 'application/json' },
        { name: 'Content-Length', value: '9' },
        { name: 'X-Token', value: 'a: b' },
      ],
      body: new Uint8Array(Buffer.from('{"a":"b"}')),
    };
    const text = requestAsText(request);
    expect(text).toBe('POST https://api.test/items?x=1\nContent-Type: application/json\nX-Token: a: b\n\n{"a":"b"}');
    const parsed = requestFromText(`${text}\n`); // editors end files with a newline
    expect(parsed).toMatchObject({ ok: true, request: { method: 'POST', url: 'https://api.test/items?x=1', headers: [{ name: 'Content-Type', value: 'application/json' }, { name: 'X-Token', value: 'a: b' }] } });
    expect(Buffer.from((parsed as { request: { body: Uint8Array } }).request.body).toString()).toBe('{"a":"b"}');
  });

  it('no body after the blank line means none; CRLF files read the same', () => {
    expect(requestFromText('get http://a.test/\r\nAccept: */*\r\n\r\n')).toEqual({ ok: true, request: { method: 'GET', url: 'http://a.test/', headers: [{ name: 'Accept', value: '*/*' }] } });
  });

  it('says what is wrong: the first line, a URL, a header line', () => {
    expect(requestFromText('')).toEqual({ ok: false, error: 'the first line must be "METHOD URL", e.g. GET https://example.com/' });
    expect(requestFromText('GET not-a-url\n')).toEqual({ ok: false, error: '"not-a-url" on the first line is not a URL' });
    expect(requestFromText('GET http://a.test/\nno colon here\n')).toEqual({ ok: false, error: 'line 2 is not a header ("Name: value"): no colon here' });
  });
});
