import fs from 'node:fs';
import path from 'node:path';
import type { Asset } from '../../../sdk/src/index.ts';
import { positional, UsageError } from '../args.ts';
import { type Ctx, ResourceFailed, unknownAction, WAIT_OUT } from './context.ts';
import { downloadAll, progressReporter, summary, table } from './output.ts';
import { PAGING, pageQuery } from './paging.ts';

export const USAGE = `atelier assets <command>
  upload <brandId> <file>... [--logo] [--category ID] [--type MIME] [--wait]
         initiate → PUT → confirm; --wait polls until processing ends (complete or failed)
  get <assetId> [--wait] [--out DIR]
  list <brandId> [--type T] [--status S] [--page N] [--limit N]
  cancel <uploadId>`;

export const showAsset = (a: Asset) =>
  summary([
    ['Asset', a.id],
    ['File', `${a.metadata.fileName} (${a.metadata.fileType}, ${a.metadata.fileSize} bytes)`],
    ['Type', a.metadata.type],
    ['Status', a.status],
    ['Size', a.metadata.dimension ? `${a.metadata.dimension.width}x${a.metadata.dimension.height}` : undefined],
    ['Error', a.errorCode ? `${a.errorCode}: ${a.errorMessage ?? ''}` : undefined],
  ]);

export async function run(action: string | undefined, argv: string[], ctx: Ctx): Promise<void> {
  if (action === 'upload') {
    const { values, positionals } = ctx.parse(
      argv,
      { logo: { type: 'boolean' }, category: { type: 'string' }, type: { type: 'string' }, wait: { type: 'boolean' } },
      USAGE,
    );
    const brandId = positional(positionals, 0, 'brandId');
    const files = positionals.slice(1).map((f) => ctx.userPath(f));
    if (files.length === 0) throw new UsageError(`missing <file>\n\n${USAGE}`);
    for (const file of files) {
      const stat = fs.statSync(file, { throwIfNoEntry: false });
      if (!stat?.isFile()) throw new ResourceFailed(`${file}: ${stat ? 'not a file' : 'no such file'}`);
    }
    const assets: Asset[] = [];
    for (const file of files) {
      const progress = progressReporter(ctx.io, `upload ${path.basename(file)}`);
      try {
        assets.push(
          await ctx.atelier.uploadFile(brandId, file, {
            wait: Boolean(values.wait),
            ...(values.logo ? { isLogo: true } : {}),
            ...(values.category ? { categoryId: values.category } : {}),
            ...(values.type ? { contentType: values.type } : {}),
            onProgress: progress,
          }),
        );
      } finally {
        progress.done();
      }
    }
    const failed = assets.filter((a) => a.status === 'failed');
    ctx.print(assets.length === 1 ? assets[0] : assets, () =>
      table(
        assets.map((a) => [a.id, a.status, a.metadata.type, a.metadata.fileName]),
        ['ASSET', 'STATUS', 'TYPE', 'FILE'],
      ),
    );
    if (failed.length)
      throw new ResourceFailed(
        `${failed.length} upload(s) failed: ${failed.map((a) => `${a.id} ${a.errorCode ?? ''}`).join(', ')}`,
      );
    return;
  }
  if (action === 'get') {
    const { values, positionals } = ctx.parse(argv, WAIT_OUT, USAGE);
    const id = positional(positionals, 0, 'assetId');
    const a = values.wait ? await ctx.wait('asset', id, `asset ${id}`) : await ctx.atelier.assets.get(id);
    if (values.out) await downloadAll(ctx.atelier, values.out, [{ name: a.id, url: a.url }], ctx.io);
    return ctx.print(a, () => showAsset(a));
  }
  if (action === 'list') {
    const { values, positionals } = ctx.parse(
      argv,
      { type: { type: 'string' }, status: { type: 'string' }, ...PAGING },
      USAGE,
    );
    const res = await ctx.atelier.assets.list(positional(positionals, 0, 'brandId'), {
      ...(values.type ? { type: values.type as never } : {}),
      ...(values.status ? { status: values.status as never } : {}),
      ...pageQuery(values),
    });
    return ctx.print(res, () =>
      table(
        res.categories.flatMap((c) =>
          c.assets.map((a) => [a.id, a.status, a.metadata.type, c.name, a.metadata.fileName]),
        ),
        ['ASSET', 'STATUS', 'TYPE', 'CATEGORY', 'FILE'],
      ),
    );
  }
  if (action === 'cancel') {
    const { positionals } = ctx.parse(argv, {}, USAGE);
    const r = await ctx.atelier.assets.cancelUpload(positional(positionals, 0, 'uploadId'));
    return ctx.print(r, () => r.message);
  }
  unknownAction('assets', action, USAGE);
}
