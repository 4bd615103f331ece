// One journal entry as one line of JSON. Bytes (requestBody raw data) become {"base64": "…"}:
// JSON has no binary, and an ArrayBuffer would otherwise print as {}.
export function toJsonLine(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item instanceof ArrayBuffer) return { base64: Buffer.from(item).toString('base64') };
    if (ArrayBuffer.isView(item)) return { base64: Buffer.from(item.buffer, item.byteOffset, item.byteLength).toString('base64') };
    return item;
  });
}
