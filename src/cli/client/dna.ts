import type { BrandDnaVersionSummary } from '../../../sdk/src/index.ts';
import { positional } from '../args.ts';
import { type Ctx, list, unknownAction } from './context.ts';
import { summary, table } from './output.ts';

export const USAGE = `atelier dna <command>
  list <brandId>
  create <brandId> [--name N] [--asset ID]... [--url URL]... [--wait]
  get <brandId> <versionId> [--wait]
  active <brandId>
  activate <brandId> <versionId>
  cancel <brandId> <versionId>
  delete <brandId> <versionId>
  rerun <brandId> <versionId> [--asset ID]... [--url URL]... [--wait]`;

const show = (v: BrandDnaVersionSummary) =>
  summary([
    ['Version', `${v.versionId} (#${v.versionNumber}${v.isActive ? ', active' : ''})`],
    ['Name', v.name],
    ['Status', v.status],
    ['Confidence', v.confidenceScore],
    ['Colors', v.preview.colorHexes],
    ['Tone', v.preview.toneShort],
    ['Typography', v.preview.typographyShort],
    ['Missing', v.missingFields],
  ]);

const SOURCES = { asset: { type: 'string', multiple: true }, url: { type: 'string', multiple: true } } as const;

export async function run(action: string | undefined, argv: string[], ctx: Ctx): Promise<void> {
  const dna = () => ctx.atelier.brandDna;
  if (action === 'list') {
    const { positionals } = ctx.parse(argv, {}, USAGE);
    const versions = await dna().list(positional(positionals, 0, 'brandId'));
    return ctx.print(versions, () =>
      table(
        versions.map((v) => [v.versionId, `#${v.versionNumber}`, v.status, v.isActive ? 'active' : '', v.name]),
        ['VERSION', 'NUMBER', 'STATUS', 'ACTIVE', 'NAME'],
      ),
    );
  }
  if (action === 'create' || action === 'rerun') {
    const { values, positionals } = ctx.parse(
      argv,
      { ...SOURCES, name: { type: 'string' }, wait: { type: 'boolean' } },
      USAGE,
    );
    const brandId = positional(positionals, 0, 'brandId');
    const sources = { assetIds: list(values.asset) ?? [], urls: list(values.url) ?? [] };
    let v: BrandDnaVersionSummary =
      action === 'create'
        ? await dna().create(brandId, { ...sources, ...(values.name ? { name: values.name } : {}) })
        : await dna().rerun(brandId, positional(positionals, 1, 'versionId'), sources);
    if (values.wait) v = await ctx.wait('brandDnaVersion', v.versionId, `brand DNA ${v.versionId}`, { brandId });
    return ctx.printRun(v, show, `brand DNA version ${v.versionId} failed`);
  }
  if (action === 'get') {
    const { values, positionals } = ctx.parse(argv, { wait: { type: 'boolean' } }, USAGE);
    const brandId = positional(positionals, 0, 'brandId');
    const id = positional(positionals, 1, 'versionId');
    const v = values.wait
      ? await ctx.wait('brandDnaVersion', id, `brand DNA ${id}`, { brandId })
      : await dna().get(brandId, id);
    return ctx.print(v, () => show(v));
  }
  if (action === 'active') {
    const { positionals } = ctx.parse(argv, {}, USAGE);
    const v = await dna().active(positional(positionals, 0, 'brandId'));
    return ctx.print(v, () => show(v));
  }
  if (action === 'activate') {
    const { positionals } = ctx.parse(argv, {}, USAGE);
    const v = await dna().activate(positional(positionals, 0, 'brandId'), positional(positionals, 1, 'versionId'));
    return ctx.print(v, () => `Activated ${v.versionId}\n${show(v)}`);
  }
  if (action === 'cancel' || action === 'delete') {
    const { positionals } = ctx.parse(argv, {}, USAGE);
    const brandId = positional(positionals, 0, 'brandId');
    const id = positional(positionals, 1, 'versionId');
    await (action === 'cancel' ? dna().cancel(brandId, id) : dna().delete(brandId, id));
    return ctx.print({ [action === 'cancel' ? 'canceled' : 'deleted']: id }, () =>
      action === 'cancel' ? `Extraction of ${id} canceled` : `Version ${id} deleted`,
    );
  }
  unknownAction('dna', action, USAGE);
}
