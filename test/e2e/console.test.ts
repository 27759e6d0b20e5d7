import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/adapters/fetch/address-policy.ts';
import { createFetcher } from '../../src/adapters/fetch/fetcher.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/assets.ts';
import { productFixture } from '../helpers/generation.ts';

/**
 * The web console end to end in real headless Chromium (Debian's `chromium`, driven by
 * playwright-core): one person's session through invite, sign-in, API keys, brands, upload, URL
 * extraction, Brand DNA, a scene forge with a refinement, a video, deletions and sign-out, against
 * a real listening server with its workers. Each step asserts what the person sees and saves a
 * full-page screenshot to test/e2e/screenshots/ (git-ignored) for a human to look at.
 *
 * Skipped only when Chromium is missing outside CI; CI installs it (.ci/run), so it always runs there.
 */
// The little of the DOM that the functions run in the page use (the project's tsconfig has no DOM
// lib, and a `/// <reference lib="dom" />` here would add it to the whole server program).
interface PageImage {
  complete: boolean;
  naturalWidth: number;
  addEventListener(type: 'load', fn: () => void, o: { once: boolean }): void;
}
interface PageVideo {
  muted: boolean;
  currentTime: number;
  duration: number;
  readyState: number;
  error: { code: number } | null;
  play(): Promise<void>;
  pause(): void;
  addEventListener(type: 'timeupdate', fn: () => void): void;
  removeEventListener(type: 'timeupdate', fn: () => void): void;
}
declare const document: {
  cookie: string;
  documentElement: { scrollHeight: number; scrollWidth: number };
  querySelector<T>(selector: string): T | null;
  querySelectorAll(selector: string): { length: number };
};
declare const window: { innerWidth: number; scrollTo(x: number, y: number): void };

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
const SHOTS = fileURLToPath(new URL('./screenshots/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../../../shared/fixtures/product-images/', import.meta.url));
const PASSWORD = 'correct horse battery staple';
const EMAIL = 'ada@solidus.example';

describe.skipIf(!hasChromium && !process.env.CI)('web console in Chromium', () => {
  let t: TestApp;
  let base: string;
  let shop: http.Server;
  let shopOrigin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  // What the steps hand on to later ones.
  let brandId = '';
  let capAssetId = '';
  let variationAssetId = '';

  const testid = (id: string) => `[data-testid="${id}"]`;
  const shot = async (name: string) => {
    // Without the transient toast, which a full-page capture would pin over the middle of the page.
    // (Through the CSSOM: the console's CSP refuses the <style> screenshot's `style` option adds.)
    const toast = (hide: boolean) =>
      page.evaluate((h) => {
        const el = document.querySelector<{ style: { display: string } }>('[data-testid="toast"]');
        if (el) el.style.display = h ? 'none' : '';
      }, hide);
    await toast(true);
    await page.screenshot({ path: path.join(SHOTS, `console-${name}.png`), fullPage: true });
    await toast(false);
  };

  /** A step: on failure, prints the page's console errors and saves a screenshot of the moment. */
  function step(name: string, fn: () => Promise<void>, timeout = 30_000) {
    it(
      name,
      async () => {
        try {
          await fn();
        } catch (err) {
          const file = path.join(SHOTS, `failed-${name.replace(/\W+/g, '-')}.png`);
          await page?.screenshot({ path: file, fullPage: true }).catch(() => undefined);
          console.error(
            `step "${name}" failed at ${page?.url()}; screenshot ${file}\npage errors:\n${problems.join('\n') || '(none)'}`,
          );
          throw err;
        }
      },
      timeout,
    );
  }

  /** Waits until the element's data-status (or `attr`) is one of `terminal`; returns it. */
  async function settled(loc: Locator, terminal: string[], timeout: number, attr = 'data-status'): Promise<string> {
    const deadline = Date.now() + timeout;
    let last: string | null = null;
    for (;;) {
      // Resolved afresh each time, so a re-rendered element is followed too.
      last = await loc.getAttribute(attr, { timeout: Math.max(1, deadline - Date.now()) });
      if (last !== null && terminal.includes(last)) return last;
      if (Date.now() > deadline) throw new Error(`${loc} still has ${attr}="${last}" after ${timeout} ms`);
      await page.waitForTimeout(100);
    }
  }

  /** Scrolls each image into view (they are lazy) and waits until all have decoded pixels. */
  async function imagesLoaded(imgs: Locator, timeout = 20_000): Promise<number[]> {
    // The pictures a step waits for are on their way: at least one is there before counting
    // (a preview that renders after its asset is read was once counted as none).
    await imgs.first().waitFor({ state: 'attached', timeout });
    const n = await imgs.count();
    for (let i = 0; i < n; i++) await imgs.nth(i).scrollIntoViewIfNeeded();
    await imgs.evaluateAll(
      (els, ms) =>
        Promise.race([
          Promise.all(
            (els as unknown as PageImage[]).map((img) =>
              img.complete
                ? Promise.resolve()
                : new Promise<void>((r) => img.addEventListener('load', r, { once: true })),
            ),
          ),
          new Promise((r) => setTimeout(r, ms)),
        ]),
      timeout,
    );
    return imgs.evaluateAll((els) => (els as unknown as PageImage[]).map((img) => img.naturalWidth));
  }

  const gotoTab = async (tab: string) => {
    await page.click(testid(`tab-${tab}`));
    await page.waitForSelector(`${testid(`tab-${tab}`)}[aria-current="page"]`);
  };

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    for (const f of fs.readdirSync(SHOTS)) if (f.startsWith('failed-')) fs.rmSync(path.join(SHOTS, f));

    // A small shop page for URL extraction: an og:image and two <img>, all served here.
    const pictures: Record<string, Buffer> = {
      '/img/hoodie.png': productFixture('solidus_hoodie_red_1.png'),
      '/img/tote.png': productFixture('solidus_tote.png'),
      '/img/mugs.png': productFixture('solidus_mug_set.png'),
    };
    shop = http.createServer((req, res) => {
      const pic = pictures[req.url ?? ''];
      if (pic) return res.writeHead(200, { 'content-type': 'image/png', 'content-length': pic.length }).end(pic);
      if (req.url === '/products/hoodie') {
        return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><title>Solidus red hoodie</title>
<meta property="og:image" content="${shopOrigin}/img/hoodie.png">
<meta property="og:title" content="Solidus red hoodie"></head>
<body><h1>Red hoodie</h1>
<img src="/img/tote.png" alt="Canvas tote bag" width="680" height="595">
<img src="/img/mugs.png" alt="Set of two mugs" width="680" height="595">
<p>Heavyweight cotton, embroidered logo.</p></body></html>`);
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
    const shopPort = (shop.address() as AddressInfo).port;
    shopOrigin = `http://127.0.0.1:${shopPort}`;

    // The server, on the port its public URL names (upload links are built from it).
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp('sqlite', {
      env: { ATELIER_PUBLIC_URL: base },
      fetcher: createFetcher({
        policy: (address, p) => (address === '127.0.0.1' && p === shopPort) || isPublicAddress(address),
      }),
    });
    await t.app.listen({ port, host: '127.0.0.1' });
    await t.deps.startWorkers();

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: base });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((r) => (shop ? shop.close(r) : r(undefined)));
  });

  step('an invited user sets a password and lands on the brands page', async () => {
    const { organizationId } = await t.bootstrap({ orgName: 'Solidus Studio' });
    const user = await t.deps.access.addUser({ organizationId, name: 'Ada Lovelace', email: EMAIL, role: 'admin' });
    const invite = await t.deps.console.createInvite(user.id);
    expect(invite.url.startsWith(`${base}/console/#/invite/`)).toBe(true);

    await page.goto(invite.url);
    await page.fill(testid('invite-password'), PASSWORD);
    await page.fill(testid('invite-password-again'), PASSWORD);
    await page.click(testid('invite-submit'));
    await page.getByText('No brands yet.').waitFor();
    expect(await page.textContent(testid('user-name'))).toContain('Ada Lovelace');
    expect(await page.textContent(testid('org-name'))).toBe('Solidus Studio');
    await page.click(testid('sign-out'));
    await page.waitForSelector(testid('login-form'));
  });

  step('signs in: a wrong password is refused with a message, the right one opens the console', async () => {
    await page.fill(testid('login-email'), EMAIL);
    await page.fill(testid('login-password'), 'not the password');
    await page.click(testid('login-submit'));
    const error = await page.waitForSelector(testid('login-error'));
    expect(await error.textContent()).toBe('Wrong email or password.');
    await shot('sign-in');

    await page.fill(testid('login-password'), PASSWORD);
    await page.click(testid('login-submit'));
    await page.getByText('No brands yet.').waitFor();
    expect(page.url()).toMatch(/#\/brands$/);
    // The session is an HttpOnly cookie: scripts cannot read it.
    expect(await page.evaluate(() => document.cookie)).toBe('');
  });

  step('creates an API key whose token (shown once) works on the REST API, then revokes it', async () => {
    await page.click(testid('nav-keys'));
    await page.click(testid('key-new'));
    await page.fill(testid('key-name'), 'CI pipeline');
    await page.click(testid('key-create'));
    const token = (await page.textContent(testid('key-token')))?.trim() ?? '';
    expect(token).toMatch(/^atl_\w+_/);
    const row = page.locator(testid('key-row'), { hasText: 'CI pipeline' });
    expect(await row.getAttribute('data-state')).toBe('active');
    await shot('keys');

    const call = () => fetch(`${base}/v1/brands`, { headers: { authorization: `Bearer ${token}` } });
    const ok = await call();
    expect(ok.status, await ok.text()).toBe(200);

    await page.click(testid('key-secret-done'));
    expect(await page.locator(testid('key-token')).count()).toBe(0);
    await row.locator(testid('key-revoke')).click();
    await page.click(testid('confirm-ok'));
    await page.waitForSelector(`${testid('key-row')}[data-state="revoked"]`);
    const refused = await call();
    expect(refused.status).toBe(401);
  });

  step('creates a brand', async () => {
    await page.click(testid('nav-brands'));
    await page.click(testid('brand-new'));
    await page.fill(testid('brand-name'), 'Solidus');
    await page.fill(testid('brand-industry'), 'Apparel');
    await page.fill(testid('brand-description'), 'Caps, hoodies and totes made to last, from a small studio.');
    await page.fill(testid('brand-values'), 'Durability, Craft');
    await page.getByLabel('Casual').check();
    await page.click(testid('brand-save'));
    await page.waitForSelector(testid('brand-page'));
    expect(await page.textContent(testid('brand-title'))).toBe('Solidus');
    brandId = (await page.getAttribute(testid('brand-page'), 'data-brand-id')) ?? '';
    expect(brandId).not.toBe('');
  });

  step(
    'uploads a product picture with the file input and sees it complete',
    async () => {
      await page.setInputFiles(testid('asset-file-input'), path.join(FIXTURES, 'solidus_cap_red_1.png'));
      expect(
        await settled(page.locator(testid('upload-item')).first(), ['complete', 'failed'], 30_000, 'data-stage'),
      ).toBe('complete');
      const card = page.locator(testid('asset-card'), { hasText: 'solidus_cap_red_1.png' });
      expect(await settled(card, ['complete', 'failed'], 15_000)).toBe('complete');
      capAssetId = (await card.getAttribute('data-asset-id')) ?? '';
      const widths = await imagesLoaded(card.locator('img'));
      expect(widths.length).toBe(1);
      expect(widths[0]).toBeGreaterThan(0);
      await shot('brand-assets');
    },
    45_000,
  );

  step(
    'imports from a product page: candidates with previews, keeps one',
    async () => {
      await gotoTab('extract');
      await page.fill(testid('extract-url'), `${shopOrigin}/products/hoodie`);
      await page.fill(testid('extract-purpose'), 'product');
      await page.click(testid('extract-submit'));
      expect(await settled(page.locator(testid('extraction')), ['completed', 'failed'], 45_000)).toBe('completed');
      const candidates = page.locator(testid('candidate'));
      expect(await candidates.count()).toBeGreaterThanOrEqual(2);
      const widths = await imagesLoaded(candidates.locator('img'));
      expect(widths.every((w) => w > 0)).toBe(true);
      // Keep only the first.
      const keeps = page.locator(testid('candidate-keep'));
      for (let i = 0; i < (await keeps.count()); i++) await keeps.nth(i).setChecked(i === 0);
      expect((await page.textContent(testid('extract-commit')))?.trim()).toBe('Add 1 to assets');
      await page.click(testid('extract-commit'));
      await candidates.first().getByText('added to assets').waitFor({ timeout: 20_000 });
      expect(await page.getByText('added to assets').count()).toBe(1);
      // At the end of the page the sticky "Add to assets" bar sits below the candidates, not over them.
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await shot('extraction');

      await gotoTab('assets');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="asset-card"]').length === 2);
    },
    75_000,
  );

  step(
    'extracts a Brand DNA version from the uploaded picture and activates it',
    async () => {
      await gotoTab('dna');
      await page.click(testid('dna-new'));
      await page.fill(testid('dna-name'), 'Spring');
      await page.check(`${testid('dna-asset')}[data-asset-id="${capAssetId}"]`);
      await page.click(testid('dna-create'));
      const detail = page.locator(testid('dna-detail'));
      await page.locator(testid('dna-detail'), { hasText: 'Spring' }).waitFor();
      expect(await settled(detail, ['ready', 'failed'], 60_000)).toBe('ready');
      expect(await page.locator(`${testid('dna-palette')} li`).count()).toBeGreaterThan(0);
      await page.click(testid('dna-activate'));
      await detail.locator('.badge', { hasText: /^active$/ }).waitFor();
      await page.locator(testid('dna-version'), { hasText: 'active' }).waitFor();
      await shot('dna');
    },
    75_000,
  );

  step(
    'composes a scene: enhances the prompt, creates it, sees four variations, likes one, refines one',
    async () => {
      await gotoTab('generate');
      await page.check(`${testid('product-option')}[data-asset-id="${capAssetId}"]`);
      const original = 'The red cap on a sunlit concrete ledge, long shadows, summer mood';
      await page.fill(testid('forge-prompt'), original);
      await page.click(testid('forge-enhance'));
      await page.waitForFunction(
        (o) => document.querySelector<{ value: string }>('[data-testid="forge-prompt"]')?.value !== o,
        original,
        { timeout: 30_000 },
      );
      expect(await page.isEnabled(testid('forge-undo'))).toBe(true);
      await page.selectOption(testid('forge-aspect'), '4:3');
      await page.click(testid('forge-submit'));

      const forge = page.locator(testid('forge')).first();
      expect(await settled(forge, ['completed', 'failed'], 90_000)).toBe('completed');
      const tiles = forge.locator(`:scope > ul > ${testid('variation')}`);
      expect(await tiles.count()).toBe(4);
      const widths = await imagesLoaded(tiles.locator('.variation-img img'));
      expect(widths).toHaveLength(4);
      for (const w of widths) expect(w).toBeGreaterThan(0);

      const first = tiles.first();
      await first.locator(testid('variation-like')).click();
      await first.locator(`${testid('variation-like')}[aria-pressed="true"]`).waitFor();

      const second = tiles.nth(1);
      await second.locator(testid('refine-objective')).selectOption('conversion');
      await second.locator(testid('variation-refine')).click();
      const refinement = forge.locator(testid('refinement')).first();
      expect(await settled(refinement, ['completed', 'failed'], 90_000)).toBe('completed');
      const refined = await imagesLoaded(refinement.locator('.variation-img img'));
      expect(refined.length).toBeGreaterThan(0);
      for (const w of refined) expect(w).toBeGreaterThan(0);
      // The liked one is still liked after the refinement reloaded the forge.
      expect(await first.locator(testid('variation-like')).getAttribute('aria-pressed')).toBe('true');
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot('forge-gallery');

      await page.setViewportSize({ width: 375, height: 812 });
      await forge.scrollIntoViewIfNeeded();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      await shot('forge-gallery-375');
      await page.setViewportSize({ width: 1280, height: 900 });
      expect(overflow, 'the page scrolls sideways at 375 px').toBeLessThanOrEqual(0);

      variationAssetId = new URL(
        (await first.locator(testid('variation-video')).getAttribute('href')) ?? '',
        base,
      ).hash.replace(/^.*from=/, '');
      expect(variationAssetId).not.toBe('');
    },
    150_000,
  );

  step(
    'makes a two-second video from a variation and can play it',
    async () => {
      const forge = page.locator(testid('forge')).first();
      await forge.locator(testid('variation-video')).first().click();
      await page.waitForSelector(`${testid('tab-videos')}[aria-current="page"]`);
      expect(await page.inputValue(testid('video-start'))).toBe(variationAssetId);
      const [frame] = await imagesLoaded(page.locator(`${testid('video-start-frame')} img`));
      expect(frame).toBeGreaterThan(0);
      await page.fill(testid('video-duration'), '2');
      await page.fill(testid('video-prompt'), 'Slow push-in on the cap, warm light');
      await page.click(testid('video-submit'));
      const group = page.locator(testid('video-group')).first();
      expect(await settled(group, ['completed', 'failed'], 90_000)).toBe('completed');
      const player = group.locator(testid('video-player')).first();
      await player.waitFor();
      await player.scrollIntoViewIfNeeded();
      const media = await player.evaluate((el) => {
        const v = el as unknown as PageVideo;
        return new Promise<{ readyState: number; duration: number; error: number | null; played: boolean }>(
          (resolve) => {
            const done = (played: boolean) =>
              resolve({ readyState: v.readyState, duration: v.duration, error: v.error?.code ?? null, played });
            const timer = setTimeout(() => done(false), 15_000);
            v.muted = true;
            v.addEventListener('timeupdate', function tick() {
              if (v.currentTime > 0) {
                v.removeEventListener('timeupdate', tick);
                v.pause();
                clearTimeout(timer);
                done(true);
              }
            });
            v.play().catch(() => {
              clearTimeout(timer);
              done(false);
            });
          },
        );
      });
      expect(media.error).toBeNull();
      expect(media.duration).toBeCloseTo(2, 0);
      expect(media.readyState).toBeGreaterThanOrEqual(2);
      expect(media.played).toBe(true);
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot('video');
    },
    120_000,
  );

  step('deletes a fresh asset (after confirming)', async () => {
    await gotoTab('assets');
    await page.setInputFiles(testid('asset-file-input'), path.join(FIXTURES, 'solidus_tote.png'));
    const card = page.locator(testid('asset-card'), { hasText: 'solidus_tote.png' });
    expect(await settled(card, ['complete', 'failed'], 30_000)).toBe('complete');
    const ids = () =>
      page.locator(testid('asset-card')).evaluateAll((cards) => cards.map((c) => c.getAttribute('data-asset-id')));
    const deleted = await card.getAttribute('data-asset-id');
    const before = await ids();
    await card.locator(testid('asset-delete')).click();
    await page.locator(testid('confirm-dialog')).getByText('The file is removed').waitFor();
    await page.click(testid('confirm-ok'));
    await card.waitFor({ state: 'detached' });
    // Only that card went: every other one is still there (generated assets that landed meanwhile,
    // such as the refinement's, may have joined the list).
    const after = await ids();
    expect(after).not.toContain(deleted);
    expect(after).toEqual(expect.arrayContaining(before.filter((id) => id !== deleted)));
    expect(await page.textContent(testid('toast'))).toContain('solidus_tote.png deleted');
  });

  step('deletes a second, empty brand', async () => {
    await page.click(testid('nav-brands'));
    await page.click(testid('brand-new'));
    await page.fill(testid('brand-name'), 'Pop-up shop');
    await page.fill(testid('brand-industry'), 'Retail');
    await page.fill(testid('brand-description'), 'A temporary brand for a weekend market.');
    await page.click(testid('brand-save'));
    await page.waitForSelector(testid('brand-page'));
    const popUpId = await page.getAttribute(testid('brand-page'), 'data-brand-id');

    await page.click(testid('nav-brands'));
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="brand-card"]').length === 2);
    await shot('brands');

    await page.click(`${testid('brand-card')}[data-brand-id="${popUpId}"] a`);
    await page.waitForSelector(`${testid('brand-page')}[data-brand-id="${popUpId}"]`);
    await page.click(testid('brand-delete'));
    await page.click(testid('confirm-ok'));
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="brand-card"]').length === 1);
    expect(await page.getAttribute(testid('brand-card'), 'data-brand-id')).toBe(brandId);
  });

  step('signs out: back to sign-in, and the session no longer works', async () => {
    await page.click(testid('sign-out'));
    await page.waitForSelector(testid('login-form'));
    const me = await page.evaluate(async () => (await fetch('/console/api/me')).status);
    expect(me).toBe(401);
    await page.goto(`${base}/console/#/keys`);
    await page.waitForSelector(testid('login-form'));
    expect(problems.filter((p) => p.startsWith('pageerror'))).toEqual([]);
  });
});
