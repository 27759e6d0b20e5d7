import fs from 'node:fs';
import path from 'node:path';
import type { Atelier, PollableKind, WaitProgress } from '../../../sdk/src/index.ts';
import { sniffType } from '../../../sdk/src/index.ts';

/** Where a command writes: stdout for results, stderr for progress. */
export interface Io {
  out(line: string): void;
  err(text: string): void;
  /** stderr is a terminal: draw a progress bar in place. */
  tty: boolean;
}

export const processIo = (): Io => ({
  out: (line) => process.stdout.write(`${line}\n`),
  err: (text) => process.stderr.write(text),
  tty: Boolean(process.stderr.isTTY),
});

/** Left-aligned columns, two spaces apart; `(none)` for no rows. */
export function table(rows: (string | number | boolean | null | undefined)[][], header?: string[]): string {
  if (rows.length === 0) return '(none)';
  const all = (header ? [header, ...rows] : rows).map((r) =>
    r.map((c) => (c === null || c === undefined ? '' : String(c))),
  );
  const widths = all[0]!.map((_, i) => Math.max(...all.map((r) => r[i]?.length ?? 0)));
  return all
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `key: value` lines for a summary, skipping empty values. */
export function summary(pairs: [string, unknown][]): string {
  const shown = pairs.filter(
    ([, v]) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0),
  );
  const w = Math.max(...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${`${k}:`.padEnd(w + 1)} ${Array.isArray(v) ? v.join(', ') : String(v)}`).join('\n');
}

/**
 * The onProgress of a wait: on a terminal, one line redrawn in place with a bar (the fraction of
 * variations done when known, else a spinner); elsewhere a plain line each time the status or the
 * fraction changes.
 */
export function progressReporter(io: Io, label: string) {
  let last = '';
  let ticks = 0;
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  const report = (p: WaitProgress<PollableKind> | { kind: 'upload'; stage: string }) => {
    if ('stage' in p) {
      if (io.tty) io.err(`\r\x1b[2K${label} ${p.stage}…`);
      else io.err(`${label}: ${p.stage}\n`);
      return;
    }
    const secs = Math.round(p.elapsedMs / 1000);
    const pct = p.fraction === undefined ? undefined : Math.round(p.fraction * 100);
    if (io.tty) {
      const width = 24;
      const bar =
        pct === undefined
          ? `${frames[ticks++ % frames.length]} `
          : `[${'#'.repeat(Math.round((pct / 100) * width)).padEnd(width, '-')}] ${String(pct).padStart(3)}% `;
      io.err(`\r\x1b[2K${label} ${bar}${p.status} ${secs}s`);
    } else {
      const line = `${label}: ${p.status}${pct === undefined ? '' : ` ${pct}%`}`;
      if (line !== last) io.err(`${line} (${secs}s)\n`);
      last = line;
    }
  };
  return Object.assign(report, {
    /** Ends the in-place line. */
    done() {
      if (io.tty) io.err('\n');
    },
  });
}

const EXT: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/tiff': 'tiff',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
};

/** Downloads signed links into `dir` as `<name>.<ext>` (extension from the bytes); returns the paths. */
export async function downloadAll(
  atelier: Atelier,
  dir: string,
  items: { name: string; url: string | undefined | null }[],
  io: Io,
): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const item of items) {
    if (!item.url) continue;
    const bytes = await atelier.download(item.url);
    const file = path.join(dir, `${item.name}.${EXT[sniffType(bytes) ?? ''] ?? 'bin'}`);
    fs.writeFileSync(file, bytes);
    written.push(file);
    io.err(`saved ${file}\n`);
  }
  return written;
}
