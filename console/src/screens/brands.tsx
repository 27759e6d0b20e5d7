/** The organization's brands as cards. */
import { api } from '../api.ts';
import { useAsync } from '../hooks.ts';
import { brandHref } from '../router.ts';
import { Badge, ErrorBox, Loading, PageHead } from '../ui.tsx';
import { WelcomeGuide } from './guide.tsx';

export function BrandsList() {
  const list = useAsync((signal) => api.brands.list({ limit: 100, sort: '-createdAt' }, { signal }), []);
  const brands = list.data?.data ?? [];
  return (
    <section class="page" data-testid="brands-page">
      <PageHead title="Brands" lead="Each brand holds its assets, Brand DNA and generated creative.">
        <a class="btn btn-primary" href="#/brands/new" data-testid="brand-new">
          New brand
        </a>
      </PageHead>
      {list.loading && !list.data ? <Loading /> : null}
      <ErrorBox error={list.error} />
      {list.data && brands.length === 0 ? <WelcomeGuide /> : null}
      <ul class="cards" data-testid="brands-list">
        {brands.map((b) => (
          <li key={b.id} class="card brand-card" data-testid="brand-card" data-brand-id={b.id}>
            <h2>
              <a href={brandHref(b.id)} class="stretched">
                {b.name}
              </a>
            </h2>
            <p class="muted">{b.industry}</p>
            <p class="clamp">{b.description}</p>
            <div class="chips">
              {b.tone.slice(0, 3).map((t) => (
                <Badge key={t}>{t}</Badge>
              ))}
              <Badge tone={b.brandDnaStatus === 'ready' ? 'ok' : 'neutral'}>
                DNA: {b.brandDnaStatus === 'none' ? 'none' : b.brandDnaStatus}
              </Badge>
            </div>
          </li>
        ))}
      </ul>
      {list.data && list.data.pagination.total > brands.length ? (
        <p class="hint">
          Showing {brands.length} of {list.data.pagination.total} brands.
        </p>
      ) : null}
    </section>
  );
}
