import type { Brand } from '../../../sdk/src/index.ts';
import { positional, UsageError } from '../args.ts';
import { type Ctx, list, need, unknownAction } from './context.ts';
import { summary, table } from './output.ts';
import { PAGING, pageLine, pageQuery } from './paging.ts';

export const USAGE = `atelier brands <command>
  list [--page N] [--limit N] [--industry X] [--sort name|-name|createdAt|-createdAt]
  get <brandId>
  create --name N --industry I --description D [--mission M] [--values a,b] [--tone Friendly,Playful] [--voice a,b] [--logo ASSET_ID]
  update <brandId> [--name N] [--industry I] [--description D] [--mission M] [--values a,b] [--tone a,b] [--voice a,b] [--logo ASSET_ID|none]
         [--if-match ETAG]   (If-Match: ETAG as \`brands get\` printed it, else the ETag of a fresh read; 412 when the brand changed)`;

const FIELDS = {
  name: { type: 'string' },
  industry: { type: 'string' },
  description: { type: 'string' },
  mission: { type: 'string' },
  values: { type: 'string', multiple: true },
  tone: { type: 'string', multiple: true },
  voice: { type: 'string', multiple: true },
  logo: { type: 'string' },
} as const;

export const showBrand = (b: Brand) =>
  summary([
    ['Brand', `${b.id} "${b.name}"`],
    ['Industry', b.industry],
    ['Description', b.description],
    ['Mission', b.mission],
    ['Values', b.values],
    ['Tone', b.tone],
    ['Voice', b.voice],
    ['Logo', b.logoAsset?.assetId],
    ['Brand DNA', b.brandDnaStatus],
    ['Updated', b.updatedAt],
  ]);

export async function run(action: string | undefined, argv: string[], ctx: Ctx): Promise<void> {
  if (action === 'list') {
    const { values } = ctx.parse(argv, { ...PAGING, industry: { type: 'string' }, sort: { type: 'string' } }, USAGE);
    const res = await ctx.atelier.brands.list({
      ...pageQuery(values),
      ...(values.industry ? { industry: values.industry } : {}),
      ...(values.sort ? { sort: values.sort as never } : {}),
    });
    return ctx.print(res, () => {
      const p = res.pagination;
      return `${table(
        res.data.map((b) => [b.id, b.name, b.industry, b.brandDnaStatus]),
        ['ID', 'NAME', 'INDUSTRY', 'DNA'],
      )}\n${pageLine({ currentPage: p.currentPage, totalPages: p.pages, totalItems: p.total }, 'brands')}`;
    });
  }
  if (action === 'get') {
    const { positionals } = ctx.parse(argv, {}, USAGE);
    const id = positional(positionals, 0, 'brandId');
    const b = await ctx.atelier.brands.get(id);
    return ctx.print(b, () => `${showBrand(b)}\nETag:        ${ctx.atelier.brands.etag(id) ?? ''}`);
  }
  if (action === 'create') {
    const { values } = ctx.parse(argv, FIELDS, USAGE);
    const body = {
      name: need(values.name, '--name'),
      industry: need(values.industry, '--industry'),
      description: need(values.description, '--description'),
      mission: values.mission ?? '',
      values: list(values.values) ?? [],
      tone: (list(values.tone) ?? []) as Brand['tone'],
      voice: list(values.voice) ?? [],
      ...(values.logo ? { logoAssetId: values.logo } : {}),
    };
    const b = await ctx.atelier.brands.create(body);
    return ctx.print(b, () => `Created brand ${b.id} "${b.name}"`);
  }
  if (action === 'update') {
    const { values, positionals } = ctx.parse(argv, { ...FIELDS, 'if-match': { type: 'string' } }, USAGE);
    const brandId = positional(positionals, 0, 'brandId');
    const patch = {
      ...(values.name !== undefined ? { name: values.name } : {}),
      ...(values.industry !== undefined ? { industry: values.industry } : {}),
      ...(values.description !== undefined ? { description: values.description } : {}),
      ...(values.mission !== undefined ? { mission: values.mission } : {}),
      ...(values.values !== undefined ? { values: list(values.values) } : {}),
      ...(values.tone !== undefined ? { tone: list(values.tone) as Brand['tone'] } : {}),
      ...(values.voice !== undefined ? { voice: list(values.voice) } : {}),
      ...(values.logo !== undefined ? { logoAssetId: values.logo === 'none' ? null : values.logo } : {}),
    };
    if (Object.keys(patch).length === 0) throw new UsageError('nothing to update');
    const b = await ctx.atelier.brands.update(
      brandId,
      patch,
      values['if-match'] ? { ifMatch: values['if-match'] } : {},
    );
    return ctx.print(b, () => `Updated brand ${b.id}\n${showBrand(b)}`);
  }
  unknownAction('brands', action, USAGE);
}
