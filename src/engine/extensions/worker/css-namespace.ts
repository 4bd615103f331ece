// A background page's `CSS` namespace (runs inside the extension's realm). uBlock Origin asks
// `CSS.supports('selector(a:has(b))')` at start-up. wrtui has no style engine, so `supports`
// answers false for everything (a page that would use the feature draws nothing here anyway);
// `escape` is the CSSOM's serialization of an identifier, exactly.

/** CSS.escape(ident), as CSSOM § 2.1 "serialize an identifier" says. */
export function cssEscape(value: unknown): string {
  const text = String(value);
  let out = '';
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const char = text.charAt(index);
    if (code === 0) out += '\uFFFD';
    else if ((code >= 0x1 && code <= 0x1f) || code === 0x7f) out += `\\${code.toString(16)} `;
    else if (index === 0 && code >= 0x30 && code <= 0x39) out += `\\${code.toString(16)} `;
    else if (index === 1 && code >= 0x30 && code <= 0x39 && text.charCodeAt(0) === 0x2d) out += `\\${code.toString(16)} `;
    else if (index === 0 && code === 0x2d && text.length === 1) out += `\\${char}`;
    else if (code >= 0x80 || code === 0x2d || code === 0x5f || (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) out += char;
    else out += `\\${char}`;
  }
  return out;
}

export function createCssNamespace(): object {
  return {
    supports(...conditions: unknown[]): boolean {
      if (conditions.length === 0) throw new TypeError("Failed to execute 'supports' on 'CSS': 1 argument required, but only 0 present.");
      return false;
    },
    escape(value: unknown): string {
      if (arguments.length === 0) throw new TypeError("Failed to execute 'escape' on 'CSS': 1 argument required, but only 0 present.");
      return cssEscape(value);
    },
  };
}
