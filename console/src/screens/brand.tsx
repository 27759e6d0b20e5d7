/** One brand: header, section tabs, and the section. */
import { useState } from 'preact/hooks';
import type { Asset } from '../../../sdk/src/index.ts';
import { api, deletes } from '../api.ts';
import { navigate, useAsync } from '../hooks.ts';
import { mergeAssets } from '../lists.ts';
import { type BrandTab, brandHref } from '../router.ts';
import { ConfirmButton, ErrorBox, Loading, notify, TabLinks } from '../ui.tsx';
import { AssetsTab, useUploads } from './assets.tsx';
import type { BrandAssets } from './brand-assets.ts';
import { BrandForm } from './brand-form.tsx';
import { DnaTab } from './dna.tsx';
import { ExtractTab } from './extract.tsx';
import { BrandGuide } from './guide.tsx';
import { GenerateTab } from './generate.tsx';
import { VideosTab } from './videos.tsx';

const TAB_LABELS: Record<BrandTab, string> = {
  assets: 'Assets',
  extract: 'Import from URL',
  generate: 'Scenes',
  videos: 'Videos',
  dna: 'Brand DNA',
  edit: 'Settings',
};

export function BrandPage(props: { id: string; tab: BrandTab; query: Record<string, string> }) {
  const brand = useAsync(
    async (signal) => {
      const b = await api.brands.get(props.id, { signal });
      return { brand: b, etag: api.brands.etag(props.id) };
    },
    [props.id],
  );
  const assetsState = useAsync(
    async (signal) => {
      const res = await api.assets.list(props.id, { limit: 100, sort: '-createdAt' }, { signal });
      return res.categories.flatMap((c) => c.assets);
    },
    [props.id],
  );
  const [fresh, setFresh] = useState<Asset[]>([]);
  const assets: BrandAssets = {
    assets: mergeAssets(assetsState.data ?? [], fresh),
    loading: assetsState.loading,
    error: assetsState.error,
    reload: assetsState.reload,
    add: (a) => setFresh((list) => [a, ...list.filter((x) => x.id !== a.id)]),
    remove: (id) => {
      setFresh((list) => list.filter((x) => x.id !== id));
      assetsState.setData((list) => list?.filter((x) => x.id !== id));
    },
  };

  const uploads = useUploads(props.id, assets);
  // How many scenes the brand has: none yet, and the page guides it to its first.
  const scenes = useAsync(
    async (signal) => (await api.scenes.list(props.id, { partner: 'all', limit: 1 }, { signal })).pagination.totalItems,
    [props.id, props.tab],
  );

  if (!brand.data) {
    return (
      <section class="page">
        {brand.loading ? <Loading /> : null}
        <ErrorBox error={brand.error} />
        {brand.error ? <a href="#/brands">Back to brands</a> : null}
      </section>
    );
  }
  const b = brand.data.brand;
  return (
    <section class="page" data-testid="brand-page" data-brand-id={b.id}>
      <div class="page-head">
        <div>
          <p class="crumbs">
            <a href="#/brands">Brands</a> /
          </p>
          <h1 data-testid="brand-title">{b.name}</h1>
          <p class="lead">{b.industry}</p>
        </div>
        <ConfirmButton
          label="Delete brand"
          title={`Delete ${b.name}?`}
          message={<p>The brand, its assets, Brand DNA and generated creative are deleted. This cannot be undone.</p>}
          testid="brand-delete"
          onConfirm={async () => {
            await deletes.brand(b.id);
            notify(`Brand ${b.name} deleted`);
            navigate('#/brands');
          }}
        />
      </div>
      <TabLinks
        tabs={(Object.keys(TAB_LABELS) as BrandTab[]).map((t) => ({
          id: t,
          href: brandHref(b.id, t),
          label: TAB_LABELS[t],
          current: t === props.tab,
        }))}
      />
      {scenes.data === 0 ? <BrandGuide brandId={b.id} assets={assets} uploads={uploads} scenes={scenes.data} /> : null}
      <div class="tab-body">
        {props.tab === 'assets' ? <AssetsTab assets={assets} uploads={uploads} /> : null}
        {props.tab === 'extract' ? <ExtractTab brandId={b.id} onCommitted={assets.reload} /> : null}
        {props.tab === 'generate' ? <GenerateTab brandId={b.id} assets={assets} onCreated={scenes.reload} /> : null}
        {props.tab === 'videos' ? <VideosTab brandId={b.id} assets={assets} from={props.query.from} /> : null}
        {props.tab === 'dna' ? <DnaTab brandId={b.id} assets={assets} /> : null}
        {props.tab === 'edit' ? (
          <BrandForm
            key={brand.data.etag}
            brand={b}
            etag={brand.data.etag}
            onSaved={(saved) => brand.setData(() => ({ brand: saved, etag: api.brands.etag(saved.id) }))}
          />
        ) : null}
      </div>
    </section>
  );
}
