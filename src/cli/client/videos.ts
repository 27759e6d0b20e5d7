import type { GeneratedVideosGroup } from '../../../sdk/src/index.ts';
import { positional, UsageError } from '../args.ts';
import { BRAND_DNA, createUnderBrand, useBrandDna } from './brand-create.ts';
import { type Ctx, int, list, unknownAction, WAIT_OUT } from './context.ts';
import { downloadAll, summary, table } from './output.ts';
import { PAGING, pageLine, pageQuery } from './paging.ts';

export const USAGE = `atelier videos <command>
  create <brandId> --start ASSET_ID --prompt TEXT [--prompt TEXT]... [--end ASSET_ID] [--model M]
         [--duration S] [--size WxH] [--reference ASSET_ID]... [--audio] [--enhanced] [--brand-dna] [--wait] [--out DIR]
         one video per --prompt; --size defaults to 1280x720; --model to video-model-7
  get <groupId> [--wait] [--out DIR]
  list <brandId> [--page N] [--limit N]
  --out DIR saves each completed video as DIR/<groupId>-<n>.mp4`;

const show = (g: GeneratedVideosGroup) =>
  `${summary([
    ['Video group', g.generatedVideosGroupId],
    ['Status', g.status],
    ['Model', `${g.model}, ${g.duration}s, ${g.dimension.width}x${g.dimension.height}`],
    ['Start frame', g.sourceAsset?.assetId],
    ['Error', g.error ? `${g.error.code}: ${g.error.message}` : undefined],
  ])}\n${table(
    g.variations.map((v, i) => [i + 1, v.generatedVideoId, v.status, v.assetId, v.prompt.slice(0, 50)]),
    ['#', 'VIDEO', 'STATUS', 'ASSET', 'PROMPT'],
  )}`;

async function finish(ctx: Ctx, group: GeneratedVideosGroup, o: { wait?: boolean; out?: string }) {
  let g = group;
  if (o.wait) g = await ctx.wait('video', g, `video ${g.generatedVideosGroupId}`, { timeoutMs: 3_600_000 });
  if (o.out) {
    await downloadAll(
      ctx.atelier,
      o.out,
      g.variations
        .filter((v) => v.status === 'completed')
        .map((v, i) => ({ name: `${g.generatedVideosGroupId}-${i + 1}`, url: v.asset?.url ?? v.previewUrl })),
      ctx.io,
    );
  }
  ctx.printRun(g, show, `video group ${g.generatedVideosGroupId} failed`);
}

function size(value: string | undefined): { width: number; height: number } {
  const m = /^(\d+)x(\d+)$/.exec(value ?? '1280x720');
  if (!m) throw new UsageError(`--size: expected WIDTHxHEIGHT, got "${value}"`);
  return { width: Number(m[1]), height: Number(m[2]) };
}

export async function run(action: string | undefined, argv: string[], ctx: Ctx): Promise<void> {
  if (action === 'create') {
    return createUnderBrand(ctx, argv, USAGE, {
      options: {
        ...WAIT_OUT,
        start: { type: 'string' },
        end: { type: 'string' },
        prompt: { type: 'string', multiple: true },
        model: { type: 'string' },
        duration: { type: 'string' },
        size: { type: 'string' },
        reference: { type: 'string', multiple: true },
        audio: { type: 'boolean' },
        enhanced: { type: 'boolean' },
        ...BRAND_DNA,
      },
      body: (values) => {
        if (!values.prompt?.length) throw new UsageError('missing --prompt');
        return {
          userPrompts: values.prompt,
          dimension: size(values.size),
          model: (values.model ?? 'video-model-7') as GeneratedVideosGroup['model'],
          ...(values.start ? { startImageAssetId: values.start } : {}),
          ...(values.end ? { endImageAssetId: values.end } : {}),
          ...(values.reference ? { referenceImageAssetIds: list(values.reference) } : {}),
          ...(values.duration ? { duration: int(values.duration, '--duration') } : {}),
          ...(values.audio ? { enableAudio: true } : {}),
          ...(values.enhanced ? { promptIsEnhanced: true } : {}),
          ...useBrandDna(values),
        };
      },
      send: async (brandId, body) => {
        const group = (await ctx.atelier.videos.create(brandId, body)).data[0];
        if (!group) throw new Error('generate-video returned no group');
        return group;
      },
      finish: (group, values) => finish(ctx, group, values),
    });
  }
  if (action === 'get') {
    const { values, positionals } = ctx.parse(argv, WAIT_OUT, USAGE);
    return finish(ctx, await ctx.atelier.videos.get(positional(positionals, 0, 'groupId')), values);
  }
  if (action === 'list') {
    const { values, positionals } = ctx.parse(argv, PAGING, USAGE);
    const res = await ctx.atelier.videos.list(positional(positionals, 0, 'brandId'), pageQuery(values));
    return ctx.print(
      res,
      () =>
        `${table(
          res.data.map((g) => [
            g.generatedVideosGroupId,
            g.status,
            g.model,
            `${g.duration}s`,
            g.variations.length,
            g.prompt.slice(0, 50),
          ]),
          ['VIDEO GROUP', 'STATUS', 'MODEL', 'DURATION', 'VIDEOS', 'PROMPT'],
        )}\n${pageLine(res.pagination, 'groups')}`,
    );
  }
  unknownAction('videos', action, USAGE);
}
