import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** node:util parseArgs with strict checking, turning its errors into UsageError. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true, allowNegative: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function positional(list: string[], index: number, name: string): string {
  const v = list[index];
  if (v === undefined || v === '') throw new UsageError(`missing <${name}>`);
  return v;
}

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;

/** `7d`, `24h`, `90m`, `30s` or `0`, in whole seconds. */
export function parseDuration(value: string, option: string): number {
  if (value === '0') return 0;
  const m = /^(\d+)([dhms])$/.exec(value);
  if (!m) throw new UsageError(`${option}: expected e.g. 24h, 90m, 30s, 7d or 0, got "${value}"`);
  return (Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]) / 1000;
}

/** `30d`, `12h`, `90m` or an ISO date-time, to an absolute Date. */
export function parseExpiry(value: string, now: Date): Date {
  const m = /^(\d+)([dhm])$/.exec(value);
  if (m) {
    const n = Number(m[1]);
    const unit = UNIT_MS[m[2] as 'd' | 'h' | 'm'];
    return new Date(now.getTime() + n * unit);
  }
  const d = new Date(value);
  if (Number.isNaN(d.getTime()))
    throw new UsageError(`--expires: expected 30d, 12h, 90m or an ISO date-time, got "${value}"`);
  return d;
}
