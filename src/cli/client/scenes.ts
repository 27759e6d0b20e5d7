import type { SceneForge, Variation } from '../../../sdk/src/index.ts';
import { positional } from '../args.ts';
import { BRAND_DNA, createUnderBrand, useBrandDna } from './brand-create.ts';
import { type Ctx, int, list, need, unknownAction, WAIT_OUT } from './context.ts';
import { downloadAll, summary, table } from './output.ts';
import { PAGING, pageLine, pageQuery } from './paging.ts';

export const USAGE = `atelier scenes <command>
  create <brandId> --prompt TEXT [--product ASSET_ID]... [--environment ASSET_ID] [--aspect 1:1|16:9|…]
         [--theme T] [--partner P] [--enhanced] [--brand-dna|--no-brand-dna] [--wait] [--out DIR]
  get <sceneForgeId> [--wait] [--out DIR]
  list <brandId> [--status S] [--partner P] [--page N] [--limit N]
  refine <sceneForgeId> <generatedImageId> [--objective attention_potential|conversion|brand_awareness] [--count N] [--wait] [--out DIR]
  like|dislike|unlike <sceneForgeId> <generatedImageId>
  --out DIR saves each completed variation's image as DIR/<sceneForgeId>-<n>.<ext>`;

const allVariations = (f: SceneForge): Variation[] => [
  ...f.variations,
  ...f.refinedVariations.flatMap((r) => r.variations),
];

export const showForge = (f: SceneForge) =>
  `${summary([
    ['Scene forge', f.sceneForgeId],
    ['Status', f.status],
    ['Prompt', f.blendingPrompt],
    ['Aspect', f.aspectRatio],
    ['Error', f.errorCode ? `${f.errorCode}: ${f.errorMessage ?? ''}` : undefined],
  ])}\n${table(
    allVariations(f).map((v) => [
      v.label,
      v.generatedImageId,
      v.status,
      v.scores ? `attention ${Math.round(v.scores.attention_potential)}` : '',
      v.liked ? 'liked' : v.disliked ? 'disliked' : '',
    ]),
    ['#', 'VARIATION', 'STATUS', 'SCORE', ''],
  )}`;

/** Waits (when asked), saves the images (when asked), prints, and fails on a failed forge. */
async function finish(ctx: Ctx, forge: SceneForge, o: { wait?: boolean; out?: string }) {
  let f = forge;
  if (o.wait) f = await ctx.wait('scene', f, `scene ${f.sceneForgeId}`);
  if (o.out) {
    await downloadAll(
      ctx.atelier,
      o.out,
      allVariations(f)
        .filter((v) => v.status === 'completed')
        .map((v) => ({ name: `${f.sceneForgeId}-${v.label.replace(/^#/, '')}`, url: v.asset?.url })),
      ctx.io,
    );
  }
  ctx.printRun(f, showForge, `scene forge ${f.sceneForgeId} failed: ${f.errorCode ?? ''}`);
}

export async function run(action: string | undefined, argv: string[], ctx: Ctx): Promise<void> {
  if (action === 'create') {
    return createUnderBrand(ctx, argv, USAGE, {
      options: {
        ...WAIT_OUT,
        prompt: { type: 'string' },
        product: { type: 'string', multiple: true },
        environment: { type: 'string' },
        aspect: { type: 'string' },
        theme: { type: 'string' },
        partner: { type: 'string' },
        enhanced: { type: 'boolean' },
        ...BRAND_DNA,
      },
      body: (values) => ({
        blendingPrompt: need(values.prompt, '--prompt'),
        promptIsEnhanced: Boolean(values.enhanced),
        ...(values.product ? { productAssetIds: list(values.product) } : {}),
        ...(values.environment ? { environmentAssetId: values.environment } : {}),
        ...(values.aspect ? { aspectRatio: values.aspect as SceneForge['aspectRatio'] } : {}),
        ...(values.theme ? { theme: values.theme } : {}),
        ...(values.partner ? { partner: values.partner as SceneForge['partner'] } : {}),
        ...useBrandDna(values),
      }),
      send: (brandId, body) => ctx.atelier.scenes.create(brandId, body),
      finish: (forge, values) => finish(ctx, forge, values),
    });
  }
  if (action === 'get') {
    const { values, positionals } = ctx.parse(argv, WAIT_OUT, USAGE);
    return finish(ctx, await ctx.atelier.scenes.get(positional(positionals, 0, 'sceneForgeId')), values);
  }
  if (action === 'list') {
    const { values, positionals } = ctx.parse(
      argv,
      { status: { type: 'string' }, partner: { type: 'string' }, ...PAGING },
      USAGE,
    );
    const res = await ctx.atelier.scenes.list(positional(positionals, 0, 'brandId'), {
      ...(values.status ? { status: values.status as never } : {}),
      ...(values.partner ? { partner: values.partner as never } : {}),
      ...pageQuery(values),
    });
    return ctx.print(
      res,
      () =>
        `${table(
          res.data.map((f) => [f.sceneForgeId, f.status, f.createdAt, f.blendingPrompt.slice(0, 60)]),
          ['SCENE FORGE', 'STATUS', 'CREATED', 'PROMPT'],
        )}\n${pageLine(res.pagination, 'forges')}`,
    );
  }
  if (action === 'refine') {
    const { values, positionals } = ctx.parse(
      argv,
      { ...WAIT_OUT, objective: { type: 'string' }, count: { type: 'string' } },
      USAGE,
    );
    const f = await ctx.atelier.scenes.refine(positional(positionals, 0, 'sceneForgeId'), {
      generatedImageId: positional(positionals, 1, 'generatedImageId'),
      ...(values.objective ? { steerObjective: values.objective as 'attention_potential' } : {}),
      ...(values.count ? { variationCount: int(values.count, '--count') } : {}),
    });
    return finish(ctx, f, values);
  }
  if (action === 'like' || action === 'dislike' || action === 'unlike') {
    const { positionals } = ctx.parse(argv, {}, USAGE);
    const v = await ctx.atelier.scenes.react(
      positional(positionals, 0, 'sceneForgeId'),
      positional(positionals, 1, 'generatedImageId'),
      action === 'unlike'
        ? { liked: false, disliked: false }
        : { liked: action === 'like', disliked: action === 'dislike' },
    );
    return ctx.print(
      v,
      () =>
        `Variation ${v.label} ${v.generatedImageId}: ${v.liked ? 'liked' : v.disliked ? 'disliked' : 'no reaction'}`,
    );
  }
  unknownAction('scenes', action, USAGE);
}
