// An extension's _locales messages, as chrome.i18n.getMessage and the manifest's `__MSG_name__`
// read them: the UI locale's file (en_US), then its language's (en), then default_locale's, each
// message taken from the first file that has it; names and placeholder names are case-insensitive.
// Pure: the bindings run it inside the extension's realm; extension-manifest.ts reads the files.
// Checked against Chromium 156: `"Hello $WHO$, $1 and $$ $2"` with placeholder who = `$1!` and
// substitutions ["A", "B"] gives `Hello A!, A and $ B`; an unknown name gives "".

/** A message as messages.json writes it, its placeholders' names lower-cased. */
export interface LocaleMessage {
  message: string;
  placeholders?: Record<string, string>;
}

/** Messages by lower-cased name. */
export type LocaleMessages = Record<string, LocaleMessage>;

/** wrtui's UI locale, as Chrome names it in _locales (en-US in getUILanguage). */
export const UI_LOCALE = 'en_US';

/**
 * The predefined messages (`@@extension_id`, `@@ui_locale`, the bidi ones) for an extension.
 * `@@extension_id` is the host of its URLs: Chrome's id, Firefox's internal UUID (not its runtime.id).
 */
export function predefinedMessages(extensionHost: string, uiLocale: string = UI_LOCALE): Record<string, string> {
  return {
    '@@extension_id': extensionHost,
    '@@ui_locale': uiLocale,
    '@@bidi_dir': 'ltr',
    '@@bidi_reversed_dir': 'rtl',
    '@@bidi_start_edge': 'left',
    '@@bidi_end_edge': 'right',
  };
}

/** chrome.i18n.getMessage: the message with its placeholders and `$1`…`$9` filled in; "" when there is none. */
export function localizedMessage(messages: LocaleMessages, predefined: Record<string, string>, name: string, substitutions: readonly string[] = []): string {
  const key = name.toLowerCase();
  if (key in predefined) return predefined[key]!;
  const entry = messages[key];
  if (!entry) return '';
  const substitute = (text: string) => text.replace(/\$(\$|[1-9])/g, (_, which: string) => (which === '$' ? '$' : (substitutions[Number(which) - 1] ?? '')));
  // Placeholders first (their content may use $1…), then the message's own $n and $$.
  const withPlaceholders = entry.message.replace(/\$([A-Za-z0-9_@]+)\$/g, (whole, placeholder: string) => {
    const content = entry.placeholders?.[placeholder.toLowerCase()];
    return content === undefined ? whole : substitute(content).replace(/\$/g, '\u0000');
  });
  return substitute(withPlaceholders).replace(/\u0000/g, '$');
}

/** A manifest text as the browser shows it: `__MSG_name__` is that message (the text as written when there is none). */
export function localizedManifestText(messages: LocaleMessages, predefined: Record<string, string>, text: string): string {
  const match = /^__MSG_(\w+)__$/.exec(text);
  return (match && localizedMessage(messages, predefined, match[1]!)) || text;
}
