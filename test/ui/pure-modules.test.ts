// The UI's pure pieces: curl export, the list window, body previews, text fitting, the ring
// buffer, key splitting, prompt editing, frame pacing.
import { gzipSync } from 'node:zlib';
import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/engine/journal.js';
import { renderLine, stripAnsi } from '../../src/ui/ansi.js';
import { commandFor } from '../../src/ui/commands/command-table.js';
import { footerLine } from '../../src/ui/components/Footer.js';
import { helpLines } from '../../src/ui/components/HelpScreen.js';
import { editText } from '../../src/ui/components/PromptLine.js';
import { bodyPreviewLines, firstLines } from '../../src/ui/detail/body-preview.js';
import { detailTabsFor, nextTab } from '../../src/ui/detail/detail-tabs.js';
import { bodyMatchCount, searchLines } from '../../src/ui/detail/search-lines.js';
import { lineText, wrapLines } from '../../src/ui/detail/styled-line.js';
import { curlCommand, shellQuote } from '../../src/ui/export/curl-command.js';
import { osc52Sequence } from '../../src/ui/export/osc52.js';
import { fit, formatBytes, formatCountdown, formatDuration, printable } from '../../src/ui/format.js';
import { splitKeys } from '../../src/ui/hooks/use-view-commands.js';
import { moveWindow, pageWindow, placeWindow } from '../../src/ui/list/list-window.js';
import { requestsLayout } from '../../src/ui/list/requests-layout.js';
import { RingBuffer } from '../../src/ui/store/ring-buffer.js';
import { hostnameOf, splitUrl } from '../../src/ui/store/request-record.js';
import { FRAME_BUDGET, TrafficStore } from '../../src/ui/store/traffic-store.js';

const NO_KEY = splitKeys('ab', { ctrl: false, meta: false } as Key)[0]![1];
const key = (overrides: Partial<Key>): Key => ({ ...NO_KEY, ...overrides });

describe('detail tabs', () => {
  it('live traffic has no Diff tab (there is no recording to compare with): tab steps from Cookies back to Timeline; a replay has it last', () => {
    const live = detailTabsFor('live');
    expect(live).not.toContain('diff');
    expect(nextTab('cookies', 1, live)).toBe('timeline');
    expect(nextTab('timeline', -1, live)).toBe('cookies');
    const replay = detailTabsFor('replay');
    expect(nextTab('cookies', 1, replay)).toBe('diff');
    expect(nextTab('diff', 1, replay)).toBe('timeline');
  });
});

describe('curl export', () => {
  it('sends the method, URL, headers as sent and the body', () => {
    const command = curlCommand({
      method: 'POST',
      url: 'https://api.test/v1/items?q=a b',
      headers: [
        { name: 'Host', value: 'api.test' },
        { name: 'Content-Type', value: 'application/json' },
        { name: 'Content-Length', value: '9' },
        { name: 'Authorization', value: "Bearer it's" },
        { name: 'Accept-Encoding', value: 'gzip, br' },
      ],
      requestBody: { raw: [{ bytes: new Uint8Array(Buffer.from('{"a":"b"}')).buffer }] },
      bodyBytes: undefined,
    });
    expect(command).toBe(`curl 'https://api.test/v1/items?q=a b' -H 'Content-Type: application/json' -H 'Authorization: Bearer it'\\''s' --compressed --data-binary '{"a":"b"}'`);
  });

  it('rebuilds url-encoded and multipart form data', () => {
    expect(curlCommand({ method: 'POST', url: 'http://a.test/', headers: [{ name: 'Content-Type', value: 'application/x-www-form-urlencoded' }], requestBody: { formData: { a: ['1', '2'], 'b c': ['x&y'] } }, bodyBytes: undefined })).toBe(
      "curl http://a.test/ -H 'Content-Type: application/x-www-form-urlencoded' --data-binary 'a=1&a=2&b+c=x%26y'",
    );
    expect(curlCommand({ method: 'POST', url: 'http://a.test/', headers: [{ name: 'Content-Type', value: 'multipart/form-data; boundary=xyz' }], requestBody: { formData: { name: ['@ann'] } }, bodyBytes: undefined })).toBe(
      "curl http://a.test/ -F 'name=\\@ann'",
    );
  });

  it('says the method when curl would pick another; binary bytes are quoted exactly', () => {
    expect(curlCommand({ method: 'DELETE', url: 'http://a.test/x', headers: [], requestBody: undefined, bodyBytes: undefined })).toBe('curl -X DELETE http://a.test/x');
    expect(curlCommand({ method: 'GET', url: 'http://a.test/x', headers: [], requestBody: undefined, bodyBytes: new Uint8Array([1, 0x27, 0xff]) })).toBe("curl -X GET http://a.test/x --data-binary $'\\x01\\'\\xff'");
    expect(shellQuote('plain-word_1.2/x')).toBe('plain-word_1.2/x');
    expect(shellQuote('é')).toBe("$'\\xe9'"); // one char per byte (latin1), as Node decodes header bytes
    expect(shellQuote('→')).toBe("$'\\xe2\\x86\\x92'"); // beyond latin1: UTF-8
  });

  it('OSC 52 carries base64 text, and gives up on huge text', () => {
    expect(osc52Sequence('hi')).toBe('\x1b]52;c;aGk=\x07');
    expect(osc52Sequence('x'.repeat(200_000))).toBeUndefined();
  });
});

describe('the list window', () => {
  it('keeps the selected row where it is on screen, never shows blank rows past the end', () => {
    expect(placeWindow(99, 9, 10, 100)).toEqual({ index: 99, offset: 9, top: 90 });
    expect(placeWindow(50, 3, 10, 100)).toEqual({ index: 50, offset: 3, top: 47 });
    expect(placeWindow(98, 2, 10, 100)).toEqual({ index: 98, offset: 8, top: 90 }); // near the end: the window is full
    expect(placeWindow(2, 9, 10, 5)).toEqual({ index: 2, offset: 2, top: 0 });
    expect(placeWindow(0, 0, 10, 0)).toEqual({ index: -1, offset: 0, top: 0 });
  });

  it('moves scroll only when the selection leaves the window; pages keep the row', () => {
    const start = placeWindow(50, 0, 10, 100);
    expect(moveWindow(start, -1, 10, 100)).toEqual({ index: 49, offset: 0, top: 49 });
    expect(moveWindow(start, 1, 10, 100)).toEqual({ index: 51, offset: 1, top: 50 });
    expect(pageWindow(start, 1, 10, 100)).toEqual({ index: 59, offset: 0, top: 59 });
    expect(pageWindow(placeWindow(95, 5, 10, 100), 1, 10, 100).index).toBe(99);
  });

  it('the detail pane goes beside the list on wide terminals, below it otherwise', () => {
    expect(requestsLayout(100, 30, false)).toMatchObject({ sideBySide: false, listRows: 28 });
    expect(requestsLayout(100, 30, true)).toMatchObject({ sideBySide: false, listRows: 8, detailHeight: 20 });
    expect(requestsLayout(200, 30, true)).toMatchObject({ sideBySide: true, listWidth: 90, detailWidth: 109, listRows: 28 });
  });
});

describe('body previews', () => {
  it('pretty JSON, text, gzip decoded, binary as hex', () => {
    expect(bodyPreviewLines({ bytes: Buffer.from('{"a":[1]}'), contentType: 'application/json', complete: true }).map(lineText)).toEqual(['{', '  "a": [', '    1', '  ]', '}']);
    const gzipped = gzipSync('line 1\nline 2');
    expect(bodyPreviewLines({ bytes: gzipped, contentEncoding: 'gzip', complete: true }).map(lineText)).toEqual([`gzip: ${gzipped.length} bytes on the wire, 13 decoded`, 'line 1', 'line 2']);
    const binary = bodyPreviewLines({ bytes: new Uint8Array([0, 1, 2, 3, 0x41]), complete: true }).map(lineText);
    expect(binary[0]).toContain('binary, 5 bytes');
    expect(binary[1]).toMatch(/^000000\s+00 01 02 03 41\s+\.\.\.\.A/);
    expect(bodyPreviewLines({ bytes: Buffer.from('{"cut'), contentType: 'application/json', complete: false }).map(lineText).join('\n')).toContain('longer than what wrtui kept');
  });

  it('viewers by content type: images (format, size), form data (fields), markup and scripts (line numbers)', () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
    expect(lineText(bodyPreviewLines({ bytes: png, contentType: 'image/png', complete: true })[0]!)).toBe(`PNG image, 1×1, ${png.length} bytes`);
    const gif = Buffer.from('474946383961' + '2003' + '1000' + '000000', 'hex');
    expect(lineText(bodyPreviewLines({ bytes: gif, complete: true })[0]!)).toBe('GIF image, 800×16, 13 bytes');
    const jpeg = Buffer.from('ffd8' + 'ffe0' + '0004' + '0000' + 'ffc0' + '0011' + '08' + '01e0' + '0280' + '03', 'hex');
    expect(lineText(bodyPreviewLines({ bytes: jpeg, complete: true })[0]!)).toBe('JPEG image, 640×480, 18 bytes');
    expect(bodyPreviewLines({ bytes: Buffer.from('a=1&b=x%20y'), contentType: 'application/x-www-form-urlencoded', complete: true }).map(lineText)).toEqual(['form data, 2 fields', 'a = 1', 'b = x y']);
    expect(bodyPreviewLines({ bytes: Buffer.from('<p>\n</p>'), contentType: 'text/html; charset=utf-8', complete: true }).map(lineText)).toEqual(['1 │ <p>', '2 │ </p>']);
  });

  it('caps the number of lines', () => {
    const lines = bodyPreviewLines({ bytes: Buffer.from('x\n'.repeat(5000)), complete: true });
    expect(lines.length).toBeLessThan(510);
    expect(lineText(lines.at(-1)!)).toMatch(/more lines/);
  });

  it('a large body shows its first 500 lines and says exactly how many more there are; markup is numbered to the width of its last line number', () => {
    const log = bodyPreviewLines({ bytes: Buffer.from('ok\r\n'.repeat(2_000_000)), contentType: 'text/plain', complete: true }).map(lineText);
    expect(log).toHaveLength(501);
    expect(log[0]).toBe('ok');
    expect(log.at(-1)).toBe('… 1999501 more lines'); // 2,000,000 lines and the empty one after the last CRLF, 500 shown
    const html = bodyPreviewLines({ bytes: Buffer.from('<p>\n'.repeat(12_000)), contentType: 'text/html', complete: true }).map(lineText);
    expect(html[0]).toBe('    1 │ <p>');
    expect(html.at(-1)).toBe('… 11501 more lines');
    expect(firstLines('a\nb', 5)).toEqual({ shown: ['a', 'b'], total: 2 });
    expect(firstLines('a\r\nb\n', 2)).toEqual({ shown: ['a', 'b'], total: 3 });
    // One line may be a whole minified bundle: the preview stops at 256 Ki characters and says how many more there are.
    const bundle = bodyPreviewLines({ bytes: Buffer.from('var a=1;'.repeat(128 * 1024)), contentType: 'application/javascript', complete: true }).map(lineText);
    expect(bundle).toHaveLength(2);
    expect(bundle[0]).toHaveLength(256 * 1024);
    expect(bundle[1]).toBe(`… ${1024 * 1024 + '1 │ '.length - 256 * 1024} more characters not shown here (/ searches the whole body)`);
    const form = bodyPreviewLines({ bytes: Buffer.from(Array.from({ length: 600 }, (_, i) => `f${i}=${i}`).join('&')), contentType: 'application/x-www-form-urlencoded', complete: true }).map(lineText);
    expect(form).toHaveLength(501);
    expect(form.at(-1)).toBe('… 101 more lines');
  });
});

describe('text on a terminal', () => {
  it('fit cuts with an ellipsis or pads; control characters become visible', () => {
    expect(fit('abcdef', 4)).toBe('abc…');
    expect(fit('ab', 4)).toBe('ab  ');
    expect(fit('ab', 4, 'right')).toBe('  ab');
    expect(printable('a\x1b[31mb\tc')).toBe('a·[31mb c');
    expect(printable('日本')).toBe('??'); // wide characters would break the columns
  });

  it('renderLine is exactly the width, styled with SGR codes', () => {
    const line = renderLine([{ text: 'red', color: 'red' }, { text: ' plain and too long' }], 10);
    expect(stripAnsi(line)).toBe('red plain…');
    expect(line).toContain('\x1b[31mred\x1b[0m');
    expect(stripAnsi(renderLine([{ text: 'x' }], 4, { inverse: true }))).toBe('x   '); // a selected row is a full bar
    expect(renderLine([{ text: 'x  ' }], 4)).toBe('x'); // trailing blanks are not drawn
  });

  it('wrapLines keeps styles and indents continuations', () => {
    const wrapped = wrapLines([[{ text: 'abcdef', color: 'cyan' }, { text: 'ghij' }]], 4, 1);
    expect(wrapped.map(lineText)).toEqual(['abcd', ' efg', ' hij']);
    expect(wrapped[1]![1]).toMatchObject({ text: 'ef', color: 'cyan' });
  });

  it('sizes, durations, countdowns', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 kB');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.0 MB');
    expect(formatDuration(0.4)).toBe('<1 ms');
    expect(formatDuration(1234)).toBe('1.23 s');
    expect(formatCountdown(65_000, 0)).toBe('in 1m05s');
    expect(formatCountdown(0, 5)).toBe('now');
  });

  it('URLs split into host and path', () => {
    expect(splitUrl('https://user@a.test:8443/p?q#h')).toEqual({ host: 'a.test:8443', path: '/p?q#h' });
    expect(splitUrl('http://a.test')).toEqual({ host: 'a.test', path: '/' });
    expect(splitUrl('data:text/plain,hi')).toEqual({ host: '', path: 'data:text/plain,hi' });
    expect(hostnameOf('[::1]:8080')).toBe('::1');
    expect(hostnameOf('a.test:80')).toBe('a.test');
  });
});

describe('keys', () => {
  it('several characters read at once are several keys', () => {
    expect(splitKeys('jj\r', key({})).map(([input, parsed]) => [input, parsed.return])).toEqual([
      ['j', false],
      ['j', false],
      ['', true],
    ]);
    expect(splitKeys('G', key({ shift: true }))).toHaveLength(1);
  });

  it('a control character read with other keys is the key Ink makes of it alone: Ctrl-U clears a prompt, none lands in its text', () => {
    // A redirect prompt's prefilled URL, then Ctrl-U and a new URL typed ahead in one read:
    // before, the raw \x15 went into the URL and the redirect failed.
    let edit: ReturnType<typeof editText> = { text: 'http://a.test/old', cursor: 17 };
    for (const [input, parsed] of splitKeys('\u0015http://b.test/ne\u007fw\u001f\u0000', key({}))) edit = editText(edit as { text: string; cursor: number }, input, parsed);
    expect(edit).toEqual({ text: 'http://b.test/nw', cursor: 16 });
    expect(splitKeys('x\u0015', key({})).map(([input, parsed]) => [input, parsed.ctrl])).toEqual([
      ['x', false],
      ['u', true],
    ]);
  });

  it('a key means the command of the view it is pressed in', () => {
    expect(commandFor('cookies', 'd', key({}))).toBe('cookies.delete');
    expect(commandFor('rules', 'd', key({}))).toBe('rules.dryRun');
    expect(commandFor('list', 'd', key({}))).toBeUndefined();
    expect(commandFor('list', 'c', key({ ctrl: true }))).toBe('quit');
    expect(commandFor('detail', '', key({ escape: true, meta: true }))).toBe('detail.close');
    expect(commandFor('cookies', '', key({ escape: true, meta: true }))).toBe('view.back');
    expect(commandFor('detail', '', key({ tab: true, shift: true }))).toBe('tab.previous');
    expect(commandFor('list', 'j', key({ meta: true }))).toBeUndefined(); // alt-j is not j
  });

  it('the prompt edits at the cursor; Backspace arrives as delete in Ink 6', () => {
    let edit = { text: 'host:a', cursor: 6 };
    edit = editText(edit, '', key({ leftArrow: true })) as typeof edit;
    edit = editText(edit, 'X', key({})) as typeof edit;
    expect(edit).toEqual({ text: 'host:Xa', cursor: 6 });
    edit = editText(edit, '', key({ delete: true })) as typeof edit;
    expect(edit).toEqual({ text: 'host:a', cursor: 5 });
    expect(editText(edit, 'u', key({ ctrl: true }))).toEqual({ text: 'a', cursor: 0 });
    expect(editText(edit, '', key({ return: true }))).toBe('submit');
    expect(editText(edit, '', key({ escape: true }))).toBe('cancel');
  });
});

describe('keys that need the live proxy', () => {
  it('a replay\'s footer does not offer resend or breakpoints; its help marks them "live proxy only"', () => {
    const text = (mode: 'live' | 'replay') => footerLine('list', 400, mode).map((segment) => segment.text).join('');
    expect(text('live')).toContain('r resend');
    expect(text('live')).toContain('i breakpoint');
    expect(text('replay')).not.toContain('resend');
    expect(text('replay')).not.toContain('breakpoint');
    expect(text('replay')).toContain('w write rule'); // writing a rule is the replay's authoring loop
    const help = helpLines('replay').map(lineText);
    expect(help.find((row) => row.includes('Resend the request'))).toMatch(/\(live proxy only: not in a replay\)$/);
    expect(help.find((row) => row.includes('Set a breakpoint'))).toMatch(/\(live proxy only: not in a replay\)$/);
    expect(help.find((row) => row.includes('Write a quick rule for the request'))).not.toMatch(/live proxy only/);
    expect(helpLines('live').map(lineText).find((row) => row.includes('Resend the request'))).not.toMatch(/live proxy only/);
  });
});

describe('the ring buffer and frame pacing', () => {
  it('a ring keeps the newest items', () => {
    const ring = new RingBuffer<number>(3);
    for (let index = 1; index <= 5; index++) ring.push(index);
    expect(ring.toArray()).toEqual([3, 4, 5]);
    expect(ring.slice(1, 2)).toEqual([4]);
    expect(ring.at(0)).toBe(3);
    ring.clear();
    expect(ring.length).toBe(0);
  });

  it('expensive frames stretch the flush interval to keep the UI within its budget', () => {
    const store = new TrafficStore({ flushIntervalMs: 33 });
    store.attach(new Journal());
    expect(store.flushIntervalMs).toBe(33);
    store.noteFrameCost(2);
    expect(store.flushIntervalMs).toBe(33); // cheap: ~30 a second
    for (let index = 0; index < 30; index++) store.noteFrameCost(20);
    expect(store.flushIntervalMs).toBeCloseTo(20 / FRAME_BUDGET, 0);
    for (let index = 0; index < 30; index++) store.noteFrameCost(1000);
    expect(store.flushIntervalMs).toBe(500); // never slower than twice a second
    store.close();
  });
});

describe('searching the detail pane', () => {
  it('every occurrence is its own highlighted segment, styles around it kept; matches are the line numbers', () => {
    const result = searchLines([[{ text: 'Content-Type: ', color: 'cyan' }, { text: 'text/plain; Text' }], [{ text: 'nothing' }]], 'text');
    expect(result.matches).toEqual([0]);
    expect(result.lines[0]).toEqual([
      { text: 'Content-Type: ', color: 'cyan' },
      { text: 'text', inverse: true, bold: true, color: 'yellow' },
      { text: '/plain; ' },
      { text: 'Text', inverse: true, bold: true, color: 'yellow' },
    ]);
    expect(bodyMatchCount(gzipSync('a TOKEN and a token'), 'gzip', 'token')).toBe(2);
  });
});

describe('folded JSON', () => {
  it('long arrays show their first 20 items and a count, long strings their first 200 characters; unfolded, all of it', () => {
    const text = JSON.stringify({ items: Array.from({ length: 25 }, (_, index) => index), note: 'y'.repeat(250), empty: [] });
    const folded = bodyPreviewLines({ bytes: Buffer.from(text), contentType: 'application/json', complete: true }).map(lineText);
    expect(folded).toContain('    … 5 more items (z unfolds)');
    expect(folded).toContain(`  "note": "${'y'.repeat(200)}"… (50 more characters, z unfolds),`);
    expect(folded).toContain('  "empty": []');
    const unfolded = bodyPreviewLines({ bytes: Buffer.from(text), contentType: 'application/json', complete: true, unfold: true }).map(lineText);
    expect(unfolded).toContain('    24');
    expect(unfolded.join('\n')).not.toContain('z unfolds');
  });
});
