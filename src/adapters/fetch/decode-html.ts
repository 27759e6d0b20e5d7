/**
 * Text of a fetched HTML body: the charset from the Content-Type header, else from `<meta charset>`
 * or `<meta http-equiv content="…; charset=…">` in its first 4 KiB, else UTF-8. An unknown label
 * is passed over for the next source.
 */
export function decodeHtml(body: Buffer, contentTypeHeader: string | undefined): string {
  const fromHeader = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentTypeHeader ?? '')?.[1];
  const head = body.subarray(0, 4096).toString('latin1');
  const fromMeta =
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ??
    /<meta[^>]+content\s*=\s*["'][^"']*charset=([\w.:-]+)/i.exec(head)?.[1];
  for (const label of [fromHeader, fromMeta]) {
    if (!label) continue;
    try {
      return new TextDecoder(label.toLowerCase()).decode(body);
    } catch {
      // an unknown label: try the next source
    }
  }
  return new TextDecoder('utf-8').decode(body);
}
