/** Display helpers (pure, unit-tested). */

const DATE = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
const DAY = new Intl.DateTimeFormat('en', { dateStyle: 'medium' });

/** `Nov 25, 2026`, or `—` for nothing. */
export function formatDay(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : DAY.format(d);
}

/** `Nov 25, 2026, 10:02 AM`, or `—` for nothing. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : DATE.format(d);
}

/** `just now`, `5 min ago`, `3 h ago`, `2 d ago`, `in 4 d`; `never` for nothing. */
export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return 'never';
  const diff = t - now;
  const abs = Math.abs(diff);
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
  ];
  for (const [ms, label] of units) {
    if (abs >= ms) {
      const n = Math.floor(abs / ms);
      return diff < 0 ? `${n} ${label} ago` : `in ${n} ${label}`;
    }
  }
  return 'just now';
}

/** `0 B`, `999 B`, `1.5 KB`, `12 MB` (1000-based, one decimal under 10). */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return i === 0 ? `${v} B` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** 0..1 → `42%`. */
export const percent = (f: number) => `${Math.round(Math.max(0, Math.min(1, f)) * 100)}%`;

export type KeyState = 'active' | 'revoked' | 'expired';
export function keyState(k: { revokedAt: string | null; expiresAt: string | null }, now = Date.now()): KeyState {
  if (k.revokedAt) return 'revoked';
  if (k.expiresAt && new Date(k.expiresAt).getTime() <= now) return 'expired';
  return 'active';
}

/** `unit` is plural; `one` the singular where it differs (`1 run`, not `1 runs`). */
export const POOL_LABELS: Record<string, { label: string; unit: string; one?: string }> = {
  image_generations: { label: 'Images', unit: 'images', one: 'image' },
  environment_generations: { label: 'Environments', unit: 'environments', one: 'environment' },
  prompt_enhancements: { label: 'Prompt enhancements', unit: 'enhancements', one: 'enhancement' },
  video_seconds: { label: 'Video', unit: 's' },
  brand_dna_extractions: { label: 'Brand DNA runs', unit: 'runs', one: 'run' },
};

export interface PoolView {
  id: string;
  label: string;
  text: string;
  /** 0..1; undefined when unlimited or not in the plan */
  fraction: number | undefined;
  /** `off`: the plan has none of it (a cap of 0, or its feature missing): not a full meter, a fact of the plan. */
  level: 'ok' | 'warn' | 'full' | 'off';
}

/**
 * The usage pools as meters: `12 / 100 images`, fraction, warning level at 80% and 100%. A pool the
 * plan does not have (cap 0, or `off` names it) reads `Not in your plan` rather than a full red bar.
 */
export function poolViews(
  pools: Record<string, { usage: number; cap: number; unlimited: boolean }> | undefined,
  off: ReadonlySet<string> = new Set(),
): PoolView[] {
  return Object.entries(pools ?? {}).map(([id, p]) => {
    const meta = POOL_LABELS[id] ?? { label: id.replace(/_/g, ' '), unit: '' };
    // The unit agrees with the number next to it: the usage when unlimited, else the cap.
    const unitFor = (n: number) => {
      const u = n === 1 && meta.one ? meta.one : meta.unit;
      return u ? ` ${u}` : '';
    };
    if (off.has(id) || (p.cap === 0 && !p.unlimited)) {
      return { id, label: meta.label, text: 'Not in your plan', fraction: undefined, level: 'off' as const };
    }
    if (p.unlimited || p.cap < 0) {
      return {
        id,
        label: meta.label,
        text: `${p.usage}${unitFor(p.usage)} · unlimited`,
        fraction: undefined,
        level: 'ok' as const,
      };
    }
    const fraction = p.cap === 0 ? 1 : Math.min(1, p.usage / p.cap);
    const level = fraction >= 1 ? 'full' : fraction >= 0.8 ? 'warn' : 'ok';
    return { id, label: meta.label, text: `${p.usage} / ${p.cap}${unitFor(p.cap)}`, fraction, level };
  });
}

/** Comma- or newline-separated text → trimmed, non-empty, unique items. */
export function splitList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[,\n]/)
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

/** The end of a `YYYY-MM-DD` day in UTC as ISO, for key expiry; undefined for an empty field. */
export function endOfDayIso(date: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  const d = new Date(`${date}T23:59:59.000Z`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** Black or white text, whichever reads better on a hex background (WCAG relative luminance). */
export function textOn(hex: string): '#000' | '#fff' {
  const m = /^#?([0-9a-f]{6}|[0-9a-f]{3})$/i.exec(hex.trim());
  if (!m) return '#000';
  let h = m[1]!;
  if (h.length === 3) h = [...h].map((c) => c + c).join('');
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = Number.parseInt(h.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (l + 0.05) / 0.05 > 1.05 / (l + 0.05) ? '#000' : '#fff';
}

/** An error for people: the API's message (and code), or the error's own. */
export function errorText(err: unknown): string {
  if (!err) return '';
  const e = err as { message?: unknown; code?: unknown; status?: unknown };
  const msg = typeof e.message === 'string' && e.message ? e.message : String(err);
  return typeof e.code === 'string' && e.code && !msg.includes(e.code) ? `${msg} (${e.code})` : msg;
}

/** A Brand DNA field path as a person reads it: `visual.typography.heading` → `heading font`. */
export function dnaFieldLabel(path: string): string {
  const parts = path.split('.');
  const last = parts[parts.length - 1] ?? path;
  const parent = parts[parts.length - 2];
  if (parent === 'typography') return `${last} font`;
  if (parent === 'voice' && last === 'descriptors') return 'voice';
  return last.replace(/_/g, ' ');
}
