import type { ImageToVideoPromptEnhancement, Pollable, ScenePromptEnhancement } from '../../../sdk/src/index.ts';
import { positional } from '../args.ts';
import { BRAND_DNA, createUnderBrand, useBrandDna } from './brand-create.ts';
import { type Ctx, int, list, need, unknownAction } from './context.ts';
import { summary } from './output.ts';

export const USAGE = `atelier enhance <command>
  scene <brandId> --prompt TEXT [--product ASSET_ID]... [--environment ASSET_ID] [--partner P] [--no-brand-dna] [--wait]
  video <brandId> --prompt TEXT --start ASSET_ID [--end ASSET_ID] [--aspect 16:9|9:16] [--model M] [--duration S]
        [--reference ASSET_ID]... [--audio] [--brand-dna] [--wait]
  get <brandId> <enhancementId> [--video] [--wait]
  A completed scene enhancement's optimizedPrompt goes to \`scenes create --prompt … --enhanced\`.`;

const showScene = (e: ScenePromptEnhancement) =>
  summary([
    ['Enhancement', e.promptEnhancementId],
    ['Status', e.status],
    ['Original', e.originalPrompt],
    ['Optimized', e.optimizedPrompt],
    ['Theme', e.theme],
    ['Error', e.errorCode ? `${e.errorCode}: ${e.errorMessage ?? ''}` : undefined],
  ]);
const showVideo = (e: ImageToVideoPromptEnhancement) =>
  summary([
    ['Enhancement', e.promptEnhancementId],
    ['Status', e.status],
    ['Model', `${e.model}, ${e.duration}s, ${e.aspectRatio}`],
    ['Original', e.originalPrompt],
    ['Enhanced', e.enhancedPrompt],
    ['Error', e.errorCode ? `${e.errorCode}: ${e.errorMessage ?? ''}` : undefined],
  ]);

/** Waits for the enhancement (when asked), prints it, and fails on a failed one. */
const finishEnhancement =
  <K extends 'enhancement' | 'videoEnhancement'>(ctx: Ctx, kind: K, show: (e: Pollable[K]) => string) =>
  async (created: Pollable[K], o: { wait?: boolean }) => {
    const e = o.wait ? await ctx.wait(kind, created, `enhancement ${created.promptEnhancementId}`) : created;
    ctx.printRun(e, show, `enhancement ${e.promptEnhancementId} failed`);
  };

export async function run(action: string | undefined, argv: string[], ctx: Ctx): Promise<void> {
  if (action === 'scene') {
    return createUnderBrand(ctx, argv, USAGE, {
      options: {
        prompt: { type: 'string' },
        product: { type: 'string', multiple: true },
        environment: { type: 'string' },
        partner: { type: 'string' },
        ...BRAND_DNA,
        wait: { type: 'boolean' },
      },
      body: (values) => ({
        originalPrompt: need(values.prompt, '--prompt'),
        ...(values.product ? { productAssetIds: list(values.product) } : {}),
        ...(values.environment ? { environmentAssetId: values.environment } : {}),
        ...(values.partner ? { partner: values.partner as ScenePromptEnhancement['partner'] } : {}),
        ...useBrandDna(values),
      }),
      send: (brandId, body) => ctx.atelier.enhancements.create(brandId, body),
      finish: finishEnhancement(ctx, 'enhancement', showScene),
    });
  }
  if (action === 'video') {
    return createUnderBrand(ctx, argv, USAGE, {
      options: {
        prompt: { type: 'string' },
        start: { type: 'string' },
        end: { type: 'string' },
        aspect: { type: 'string' },
        model: { type: 'string' },
        duration: { type: 'string' },
        reference: { type: 'string', multiple: true },
        audio: { type: 'boolean' },
        ...BRAND_DNA,
        wait: { type: 'boolean' },
      },
      body: (values) => ({
        originalPrompt: need(values.prompt, '--prompt'),
        aspectRatio: (values.aspect ?? '16:9') as '16:9',
        model: (values.model ?? 'video-model-7') as 'video-model-7',
        ...(values.start ? { startFrameAssetId: values.start } : {}),
        ...(values.end ? { endFrameAssetId: values.end } : {}),
        ...(values.reference ? { referenceImageAssetIds: list(values.reference) } : {}),
        ...(values.duration ? { duration: int(values.duration, '--duration') } : {}),
        ...(values.audio ? { enableAudio: true } : {}),
        ...useBrandDna(values),
      }),
      send: (brandId, body) => ctx.atelier.videoEnhancements.create(brandId, body),
      finish: finishEnhancement(ctx, 'videoEnhancement', showVideo),
    });
  }
  if (action === 'get') {
    const { values, positionals } = ctx.parse(argv, { video: { type: 'boolean' }, wait: { type: 'boolean' } }, USAGE);
    const brandId = positional(positionals, 0, 'brandId');
    const id = positional(positionals, 1, 'enhancementId');
    if (values.video) {
      const e = values.wait
        ? await ctx.wait('videoEnhancement', id, `enhancement ${id}`, { brandId })
        : await ctx.atelier.videoEnhancements.get(brandId, id);
      return ctx.print(e, () => showVideo(e));
    }
    const e = values.wait
      ? await ctx.wait('enhancement', id, `enhancement ${id}`, { brandId })
      : await ctx.atelier.enhancements.get(brandId, id);
    return ctx.print(e, () => showScene(e));
  }
  unknownAction('enhance', action, USAGE);
}
