import type { ParseArgsConfig } from 'node:util';
import { type parse, positional } from '../args.ts';
import type { COMMON, Ctx } from './context.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** What ctx.parse answers for a command whose own options are T (the common ones come with them). */
type Values<T extends Options> = ReturnType<typeof parse<typeof COMMON & T>>['values'];

/** `--brand-dna` / `--no-brand-dna`: whether a run uses the brand's active Brand DNA. */
export const BRAND_DNA = { 'brand-dna': { type: 'boolean' } } as const satisfies Options;

/** The request's `useBrandDna`: only when the user said either way (else the server's default). */
export const useBrandDna = (values: { 'brand-dna'?: boolean | undefined }) =>
  values['brand-dna'] !== undefined ? { useBrandDna: values['brand-dna'] } : {};

/**
 * A subcommand that creates a run under a brand (`scenes create`, `videos create`, `enhance
 * scene|video`): `<brandId>` and the command's options, --wait (and --out) among them. Parses
 * them, takes the brandId, builds the request body from the options, sends it, and hands the
 * created run and the options to `finish` (which waits when asked, saves and prints). The body is
 * built before the client is first used, so a usage error in it (a missing --prompt) is one even
 * with no server configured.
 */
export async function createUnderBrand<T extends Options, B, R>(
  ctx: Ctx,
  argv: string[],
  usage: string,
  command: {
    options: T;
    body: (values: Values<T>) => B;
    send: (brandId: string, body: B) => Promise<R>;
    finish: (run: R, values: Values<T>) => void | Promise<void>;
  },
): Promise<void> {
  const { values, positionals } = ctx.parse(argv, command.options, usage);
  const brandId = positional(positionals, 0, 'brandId');
  const body = command.body(values);
  return command.finish(await command.send(brandId, body), values);
}
