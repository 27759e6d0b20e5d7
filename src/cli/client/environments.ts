import type { EnvironmentGeneration } from '../../../sdk/src/index.ts';
import { positional } from '../args.ts';
import { type Ctx, need, unknownAction, WAIT_OUT } from './context.ts';
import { downloadAll, summary } from './output.ts';

export const USAGE = `atelier environments <command>
  create <brandId> --prompt TEXT [--wait] [--out DIR]
  get <environmentGenerationId> [--wait] [--out DIR]
  The generated environment is an asset usable as \`scenes create --environment <assetId>\`.`;

const show = (e: EnvironmentGeneration) =>
  summary([
    ['Environment', e.environmentGenerationId],
    ['Status', e.status],
    ['Prompt', e.prompt],
    ['Asset', e.generatedAsset?.assetId],
    ['Error', e.errorCode ? `${e.errorCode}: ${e.errorMessage ?? ''}` : undefined],
  ]);

export async function run(action: string | undefined, argv: string[], ctx: Ctx): Promise<void> {
  const opts = { ...WAIT_OUT, prompt: { type: 'string' } } as const;
  let e: EnvironmentGeneration;
  const { values, positionals } = ctx.parse(argv, opts, USAGE);
  if (action === 'create') {
    const brandId = positional(positionals, 0, 'brandId');
    const prompt = need(values.prompt, '--prompt');
    e = await ctx.atelier.environments.create(brandId, { prompt });
  } else if (action === 'get') {
    e = await ctx.atelier.environments.get(positional(positionals, 0, 'environmentGenerationId'));
  } else return unknownAction('environments', action, USAGE);
  if (values.wait) e = await ctx.wait('environment', e, `environment ${e.environmentGenerationId}`);
  if (values.out && e.status === 'completed') {
    await downloadAll(
      ctx.atelier,
      values.out,
      [{ name: e.environmentGenerationId, url: e.generatedAsset?.url }],
      ctx.io,
    );
  }
  ctx.printRun(e, show, `environment ${e.environmentGenerationId} failed: ${e.errorCode ?? ''}`);
}
