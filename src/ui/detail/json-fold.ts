// Pretty JSON for the detail pane with the long parts folded: an array past FOLD_ITEMS items shows
// its first ones and how many more, a string past FOLD_CHARS characters its beginning and how
// much more; `z` in the detail pane unfolds everything (and folds it again).

const FOLD_ITEMS = 20;
const FOLD_CHARS = 200;

/** The value as indented JSON lines, folded unless `unfold`; undefined when the text is not JSON. */
export function foldedJson(text: string, unfold: boolean): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (unfold) return JSON.stringify(value, null, 2);
  const lines: string[] = [];
  write(value, 0, '', '', lines);
  return lines.join('\n');
}

function write(value: unknown, depth: number, prefix: string, suffix: string, lines: string[]): void {
  const indent = '  '.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return void lines.push(`${indent}${prefix}[]${suffix}`);
    lines.push(`${indent}${prefix}[`);
    const shown = value.slice(0, FOLD_ITEMS);
    shown.forEach((item, index) => write(item, depth + 1, '', index < value.length - 1 ? ',' : '', lines));
    if (value.length > FOLD_ITEMS) lines.push(`${'  '.repeat(depth + 1)}… ${value.length - FOLD_ITEMS} more items (z unfolds)`);
    return void lines.push(`${indent}]${suffix}`);
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return void lines.push(`${indent}${prefix}{}${suffix}`);
    lines.push(`${indent}${prefix}{`);
    entries.forEach(([key, item], index) => write(item, depth + 1, `${JSON.stringify(key)}: `, index < entries.length - 1 ? ',' : '', lines));
    return void lines.push(`${indent}}${suffix}`);
  }
  if (typeof value === 'string' && value.length > FOLD_CHARS) {
    return void lines.push(`${indent}${prefix}${JSON.stringify(value.slice(0, FOLD_CHARS))}… (${value.length - FOLD_CHARS} more characters, z unfolds)${suffix}`);
  }
  lines.push(`${indent}${prefix}${JSON.stringify(value)}${suffix}`);
}
