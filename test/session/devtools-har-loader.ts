// What Chrome DevTools' HAR importer demands of a file, mirrored from its HARFormat.ts
// (front_end/models/har/HARFormat.ts: HARRoot, HARLog, HAREntry, HARRequest, HARResponse,
// HARContent, HARTimings, HARCookie, …): every object it descends into must be an object, every
// field it reads with safeNumber a number (Number(x) not NaN, so a missing one fails), every
// safeDate a parseable date. Returns the problems found, [] when DevTools would load the file.

type Json = Record<string, unknown>;

export function devToolsHarProblems(har: unknown): string[] {
  const problems: string[] = [];
  const object = (value: unknown, path: string): Json | undefined => {
    if (!value || typeof value !== 'object') {
      problems.push(`${path}: First parameter is expected to be an object`);
      return undefined;
    }
    return value as Json;
  };
  const safeNumber = (value: unknown, path: string) => {
    if (Number.isNaN(Number(value))) problems.push(`${path}: Casting to number results in NaN`);
  };
  const optionalNumber = (value: unknown, path: string) => value !== undefined && safeNumber(value, path);
  const safeDate = (value: unknown, path: string) => {
    if (Number.isNaN(new Date(value as string).getTime())) problems.push(`${path}: Invalid date format`);
  };
  const each = (value: unknown, path: string, check: (item: unknown, path: string) => void) => {
    if (Array.isArray(value)) value.forEach((item, i) => check(item, `${path}[${i}]`));
  };
  const nameValue = (item: unknown, path: string) => object(item, path);

  const root = object(har, 'root');
  const log = root && object(root.log, 'log');
  if (!log) return problems;
  object(log.creator, 'log.creator');
  if (log.browser) object(log.browser, 'log.browser');
  each(log.pages, 'log.pages', (page, path) => {
    const p = object(page, path);
    if (!p) return;
    safeDate(p.startedDateTime, `${path}.startedDateTime`);
    const timings = object(p.pageTimings, `${path}.pageTimings`);
    if (timings) {
      optionalNumber(timings.onContentLoad, `${path}.pageTimings.onContentLoad`);
      optionalNumber(timings.onLoad, `${path}.pageTimings.onLoad`);
    }
  });
  if (!Array.isArray(log.entries)) {
    problems.push('log.entries is expected to be an array');
    return problems;
  }
  log.entries.forEach((raw, i) => {
    const path = `log.entries[${i}]`;
    const entry = object(raw, path);
    if (!entry) return;
    safeDate(entry.startedDateTime, `${path}.startedDateTime`);
    safeNumber(entry.time, `${path}.time`);
    const request = object(entry.request, `${path}.request`);
    if (request) {
      each(request.cookies, `${path}.request.cookies`, (c, p) => {
        const cookie = object(c, p);
        if (cookie?.expires) safeDate(cookie.expires, `${p}.expires`);
      });
      each(request.headers, `${path}.request.headers`, nameValue);
      each(request.queryString, `${path}.request.queryString`, nameValue);
      if (request.postData) {
        const postData = object(request.postData, `${path}.request.postData`);
        if (postData) each(postData.params, `${path}.request.postData.params`, nameValue);
      }
      safeNumber(request.headersSize, `${path}.request.headersSize`);
      safeNumber(request.bodySize, `${path}.request.bodySize`);
    }
    const response = object(entry.response, `${path}.response`);
    if (response) {
      safeNumber(response.status, `${path}.response.status`);
      each(response.cookies, `${path}.response.cookies`, (c, p) => {
        const cookie = object(c, p);
        if (cookie?.expires) safeDate(cookie.expires, `${p}.expires`);
      });
      each(response.headers, `${path}.response.headers`, nameValue);
      const content = object(response.content, `${path}.response.content`);
      if (content) {
        safeNumber(content.size, `${path}.response.content.size`);
        optionalNumber(content.compression, `${path}.response.content.compression`);
      }
      safeNumber(response.headersSize, `${path}.response.headersSize`);
      safeNumber(response.bodySize, `${path}.response.bodySize`);
      optionalNumber(response._transferSize, `${path}.response._transferSize`);
    }
    const timings = object(entry.timings, `${path}.timings`);
    if (timings) {
      for (const name of ['blocked', 'dns', 'connect', 'ssl']) optionalNumber(timings[name], `${path}.timings.${name}`);
      for (const name of ['send', 'wait', 'receive']) safeNumber(timings[name], `${path}.timings.${name}`);
    }
  });
  return problems;
}
