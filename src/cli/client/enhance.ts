import type { ImageToVideoPromptEnhancement, ScenePromptEnhancement } from '../../../sdk/src/index.ts';
import { positional } from '../args.ts';
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

export async function run(action: string | undefined, argv: string[], ctx: Ctx): Promise<void> {
  if (action === 'scene') {
    const { values, positionals } = ctx.parse(
      argv,
      {
        prompt: { type: 'string' },
        product: { type: 'string', multiple: true },
        environment: { type: 'string' },
        partner: { type: 'string' },
        'brand-dna': { type: 'boolean' },
        wait: { type: 'boolean' },
      },
      USAGE,
    );
    const brandId = positional(positionals, 0, 'brandId');
    const body = {
      originalPrompt: need(values.prompt, '--prompt'),
      ...(values.product ? { productAssetIds: list(values.product) } : {}),
      ...(values.environment ? { environmentAssetId: values.environment } : {}),
      ...(values.partner ? { partner: values.partner as ScenePromptEnhancement['partner'] } : {}),
      ...(values['brand-dna'] !== undefined ? { useBrandDna: values['brand-dna'] } : {}),
    };
    let e = await ctx.atelier.enhancements.create(brandId, body);
    if (values.wait) e = await ctx.wait('enhancement', e, `enhancement ${e.promptEnhancementId}`);
    return ctx.printRun(e, showScene, `enhancement ${e.promptEnhancementId} failed`);
  }
  if (action === 'video') {
    const { values, positionals } = ctx.parse(
      argv,
      {
        prompt: { type: 'string' },
        start: { type: 'string' },
        end: { type: 'string' },
        aspect: { type: 'string' },
        model: { type: 'string' },
        duration: { type: 'string' },
        reference: { type: 'string', multiple: true },
        audio: { type: 'boolean' },
        'brand-dna': { type: 'boolean' },
        wait: { type: 'boolean' },
      },
      USAGE,
    );
    const brandId = positional(positionals, 0, 'brandId');
    const body = {
      originalPrompt: need(values.prompt, '--prompt'),
      aspectRatio: (values.aspect ?? '16:9') as '16:9',
      model: (values.model ?? 'video-model-7') as 'video-model-7',
      ...(values.start ? { startFrameAssetId: values.start } : {}),
      ...(values.end ? { endFrameAssetId: values.end } : {}),
      ...(values.reference ? { referenceImageAssetIds: list(values.reference) } : {}),
      ...(values.duration ? { duration: int(values.duration, '--duration') } : {}),
      ...(values.audio ? { enableAudio: true } : {}),
      ...(values['brand-dna'] !== undefined ? { useBrandDna: values['brand-dna'] } : {}),
    };
    let e = await ctx.atelier.videoEnhancements.create(brandId, body);
    if (values.wait) e = await ctx.wait('videoEnhancement', e, `enhancement ${e.promptEnhancementId}`);
    return ctx.printRun(e, showVideo, `enhancement ${e.promptEnhancementId} failed`);
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
