import type { Extraction } from '../../../sdk/src/index.ts';
import { positional } from '../args.ts';
import { type Ctx, unknownAction } from './context.ts';
import { summary, table } from './output.ts';

export const USAGE = `atelier extract <command>
  create <brandId> <url> [--purpose TEXT] [--media images|videos|both] [--wait]
  get <extractionId> [--include-rejected] [--wait]
  commit <extractionId> [--candidate ID]... [--logo ID]...   (no --candidate: every kept candidate)
  delete <extractionId>`;

const show = (x: Extraction) =>
  `${summary([
    ['Extraction', x.extractionId],
    ['URL', x.url],
    ['Status', x.status],
    ['Error', x.errorCode ? `${x.errorCode}: ${x.errorMessage ?? ''}` : undefined],
  ])}${
    x.candidates
      ? `\n${table(
          x.candidates.map((c) => [
            c.rank,
            c.candidateId,
            c.kept ? 'kept' : (c.rejectionCode ?? 'rejected'),
            c.relevanceScore.toFixed(2),
            c.width && c.height ? `${c.width}x${c.height}` : '',
            c.looksLikeLogo ? 'logo?' : '',
          ]),
          ['RANK', 'CANDIDATE', 'KEPT', 'SCORE', 'SIZE', ''],
        )}`
      : ''
  }`;

export async function run(action: string | undefined, argv: string[], ctx: Ctx): Promise<void> {
  if (action === 'create') {
    const { values, positionals } = ctx.parse(
      argv,
      { purpose: { type: 'string' }, media: { type: 'string' }, wait: { type: 'boolean' } },
      USAGE,
    );
    let x = await ctx.atelier.extractions.create({
      brandId: positional(positionals, 0, 'brandId'),
      url: positional(positionals, 1, 'url'),
      ...(values.purpose ? { purpose: values.purpose } : {}),
      ...(values.media ? { media: values.media as Extraction['media'] } : {}),
    });
    if (values.wait) x = await ctx.wait('extraction', x, `extraction ${x.extractionId}`);
    return ctx.printRun(x, show, `extraction ${x.extractionId} failed: ${x.errorCode}`);
  }
  if (action === 'get') {
    const { values, positionals } = ctx.parse(
      argv,
      { 'include-rejected': { type: 'boolean' }, wait: { type: 'boolean' } },
      USAGE,
    );
    const id = positional(positionals, 0, 'extractionId');
    if (values.wait) await ctx.wait('extraction', id, `extraction ${id}`);
    const x = await ctx.atelier.extractions.get(id, values['include-rejected'] ? { includeRejected: true } : {});
    return ctx.print(x, () => show(x));
  }
  if (action === 'commit') {
    const { values, positionals } = ctx.parse(
      argv,
      { candidate: { type: 'string', multiple: true }, logo: { type: 'string', multiple: true } },
      USAGE,
    );
    const logos = new Set(values.logo ?? []);
    const ids = [...new Set([...(values.candidate ?? []), ...logos])];
    const r = await ctx.atelier.extractions.commit(
      positional(positionals, 0, 'extractionId'),
      ids.length ? { items: ids.map((candidateId) => ({ candidateId, isLogo: logos.has(candidateId) })) } : {},
    );
    return ctx.print(r, () =>
      table(
        r.assets.map((a) => [a.assetId, a.assetType]),
        ['ASSET', 'TYPE'],
      ),
    );
  }
  if (action === 'delete') {
    const { positionals } = ctx.parse(argv, {}, USAGE);
    const id = positional(positionals, 0, 'extractionId');
    await ctx.atelier.extractions.delete(id);
    return ctx.print({ deleted: id }, () => `Extraction ${id} deleted`);
  }
  unknownAction('extract', action, USAGE);
}
