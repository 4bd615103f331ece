// Multipart bodies in the detail pane: a form upload shown part by part (field names, file names,
// types, sizes, the start of each part's content), not as a hex dump of the whole body.
import { describe, expect, it } from 'vitest';
import { bodyPreviewLines } from '../../src/ui/detail/body-preview.js';
import { dispositionParam, multipartBoundary, parseMultipart } from '../../src/ui/detail/multipart.js';
import { lineText } from '../../src/ui/detail/styled-line.js';

const BOUNDARY = '----wrtuiBoundary7MA4YWxk';
const form = (parts: string[], close = true) => Buffer.from(`${parts.map((part) => `--${BOUNDARY}\r\n${part}\r\n`).join('')}${close ? `--${BOUNDARY}--\r\n` : ''}`, 'latin1');
const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

describe('multipart bodies', () => {
  it('a form upload shows each part: its field name, file name, type, size and the start of its content', () => {
    const body = form([
      'Content-Disposition: form-data; name="title"\r\n\r\nHoliday photo',
      `Content-Disposition: form-data; name="photo"; filename="beach \\"1\\".png"\r\nContent-Type: image/png\r\n\r\n${PNG_1x1.toString('latin1')}`,
      'Content-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n{"tags":["sea"]}',
    ]);
    const text = bodyPreviewLines({ bytes: body, contentType: `multipart/form-data; boundary=${BOUNDARY}`, complete: true }).map(lineText);
    expect(text[0]).toBe('multipart/form-data, 3 parts');
    expect(text).toContain('part 1  name="title"  13 bytes');
    expect(text).toContain('   Holiday photo');
    expect(text).toContain(`part 2  name="photo"  filename="beach \\"1\\".png"  image/png  ${PNG_1x1.length} bytes`);
    expect(text).toContain(`   PNG image, 1×1, ${PNG_1x1.length} bytes`);
    expect(text).toContain('part 3  name="meta"  application/json  16 bytes');
    expect(text).toContain('   {');
    expect(text).toContain('     "tags": [');
  });

  it('a body cut short (--max-body-size) shows the parts read so far, the last one marked cut', () => {
    const whole = form(['Content-Disposition: form-data; name="a"\r\n\r\none', `Content-Disposition: form-data; name="big"; filename="big.txt"\r\n\r\n${'x'.repeat(5000)}`]);
    const cut = whole.subarray(0, 300);
    const text = bodyPreviewLines({ bytes: cut, contentType: `multipart/form-data; boundary="${BOUNDARY}"`, complete: false }).map(lineText);
    expect(text[0]).toBe('multipart/form-data, 2 parts');
    expect(text.find((row) => row.startsWith('part 2'))).toMatch(/^part 2 {2}name="big" {2}filename="big\.txt" {2}\d+ bytes \(cut\)$/);
    expect(text.at(-1)).toBe('… (the body is longer than what wrtui kept)');
  });

  it('not multipart after all (no delimiter in the bytes): shown as any other body', () => {
    const text = bodyPreviewLines({ bytes: Buffer.from('plain words'), contentType: `multipart/form-data; boundary=${BOUNDARY}`, complete: true }).map(lineText);
    expect(text).toEqual(['plain words']);
  });

  it('parses boundaries quoted or not, Content-Disposition parameters with escapes, and counts parts past the cap', () => {
    expect(multipartBoundary('multipart/form-data; boundary="a b"')).toBe('a b');
    expect(multipartBoundary('Multipart/Mixed;boundary=xyz; charset=utf-8')).toBe('xyz');
    expect(multipartBoundary('text/plain; boundary=xyz')).toBeUndefined();
    expect(dispositionParam('form-data; name="a\\"b"; filename=plain.txt', 'name')).toBe('a"b');
    expect(dispositionParam('form-data; name="a\\"b"; filename=plain.txt', 'filename')).toBe('plain.txt');
    const many = parseMultipart(form(Array.from({ length: 120 }, (_, index) => `Content-Disposition: form-data; name="f${index}"\r\n\r\n${index}`)), BOUNDARY);
    expect([many.parts.length, many.more, many.complete]).toEqual([100, 20, true]);
  });
});
