import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { makeVideo, tempDir } from '../../../test/fixtures/media/generate.ts';
import { readIndependently, tamper } from '../../../test/helpers/c2pa.ts';
import {
  credentialsFromSettings,
  DEV_SIGNER_FILE,
  loadOrCreateDevCredentials,
  parseCredentials,
} from './credentials.ts';
import { manifestDefinition, sourceTypeUri, xmpPacket } from './manifest.ts';
import { createProvenance } from './provenance.ts';
import { embedXmp } from './xmp-embed.ts';

const silent = { warn() {}, info() {} };
const GEN = { version: '9.9.9', engine: 'local' };

function provenance(dataDir: string) {
  const warnings: string[] = [];
  const p = createProvenance({
    settings: {},
    dataDir,
    version: '9.9.9',
    logger: { ...silent, warn: (_o: unknown, msg: string) => void warnings.push(msg) } as never,
  });
  return { p, warnings };
}

const picture = (format: 'png' | 'jpeg', colour = '#8040c0') =>
  sharp({ create: { width: 96, height: 64, channels: 3, background: colour } })
    .composite([
      {
        input: Buffer.from('<svg width="40" height="30"><circle cx="20" cy="15" r="12" fill="#f0c020"/></svg>'),
        left: 20,
        top: 10,
      },
    ])
    .toFormat(format)
    .toBuffer();

describe('manifestDefinition (facts → the c2pa-rs Builder definition)', () => {
  it('a created action with the source type and the engine, a placed action per component, ingredients by id and hash', () => {
    const { definition, ingredients } = manifestDefinition({
      title: 'scene-1.png',
      format: 'image/png',
      sourceType: 'compositeWithTrainedAlgorithmicMedia',
      generator: { version: '1.2.3', engine: 'local' },
      ingredients: [
        { assetId: 'a1', title: 'mug.png', format: 'image/png', sha256: 'ab', relationship: 'componentOf' },
        { assetId: 'a2', title: 'ref.jpg', format: 'image/jpeg', sha256: 'cd', relationship: 'inputTo' },
      ],
    });
    expect(definition.claim_generator_info).toEqual([{ name: 'Atelier', version: '1.2.3' }]);
    const actions = (definition.assertions as { data: { actions: Record<string, unknown>[] } }[])[0]?.data.actions;
    expect(actions?.map((a) => a.action)).toEqual(['c2pa.created', 'c2pa.placed']);
    expect(actions?.[0]).toMatchObject({
      digitalSourceType: sourceTypeUri('compositeWithTrainedAlgorithmicMedia'),
      softwareAgent: { name: 'Atelier local engine', version: '1.2.3' },
      parameters: { 'org.atelier.engine': 'local' },
    });
    expect(actions?.[1]).toEqual({ action: 'c2pa.placed', parameters: { ingredientIds: ['ingredient-1'] } });
    expect(ingredients.map((i) => i.definition)).toEqual([
      expect.objectContaining({
        label: 'ingredient-1',
        relationship: 'componentOf',
        instance_id: 'urn:atelier:asset:a1',
        metadata: { 'org.atelier.sha256': 'ab' },
      }),
      expect.objectContaining({ label: 'ingredient-2', relationship: 'inputTo', instance_id: 'urn:atelier:asset:a2' }),
    ]);
  });

  it("a provider's model is the software agent", () => {
    const { definition } = manifestDefinition({
      title: 'x.png',
      format: 'image/png',
      sourceType: 'trainedAlgorithmicMedia',
      generator: { version: '1', engine: 'openai-images:gpt-image-1', model: 'gpt-image-1' },
      ingredients: [],
    });
    const actions = (definition.assertions as { data: { actions: Record<string, unknown>[] } }[])[0]?.data.actions;
    expect(actions?.[0]).toMatchObject({
      softwareAgent: { name: 'gpt-image-1' },
      parameters: { 'org.atelier.model': 'gpt-image-1' },
    });
  });
});

describe('XMP (IPTC digital source type) in PNG and JPEG', () => {
  it.each(['png', 'jpeg'] as const)('%s: sharp reads the packet back and the pixels are unchanged', async (fmt) => {
    const src = await picture(fmt);
    const out = embedXmp(src, `image/${fmt}`, xmpPacket({ sourceType: 'algorithmicMedia', generator: GEN }));
    const meta = await sharp(out).metadata();
    expect(meta.xmp?.toString()).toContain(`Iptc4xmpExt:DigitalSourceType="${sourceTypeUri('algorithmicMedia')}"`);
    expect(meta.xmp?.toString()).toContain('Atelier 9.9.9 (local engine)');
    const [a, b] = await Promise.all([sharp(src).raw().toBuffer(), sharp(out).raw().toBuffer()]);
    expect(a.equals(b)).toBe(true);
  });
});

describe('signing PNG, JPEG and MP4 (checked by c2pa-ts, an independent reader)', () => {
  const dir = tempDir('atelier-c2pa-');
  const { p, warnings } = provenance(dir.dir);
  const video = () => fs.readFileSync(makeVideo(dir.file('v.mp4'), { width: 128, height: 96, seconds: 1 }));

  it.each([
    ['image/png', 'PNG', 'assertion.dataHash.match'],
    ['image/jpeg', 'JPEG', 'assertion.dataHash.match'],
    ['video/mp4', 'MP4', 'assertion.bmffHash.match'],
  ] as const)(
    '%s: valid signature and hashes, the facts as recorded, ingredients present; a changed byte fails',
    async (format, _name, hashCode) => {
      const source = format === 'video/mp4' ? video() : await picture(format === 'image/png' ? 'png' : 'jpeg');
      const product = await picture('png', '#208060');
      // An ingredient that carries credentials of its own keeps them.
      const signedProduct = (
        await p.sign(await picture('jpeg', '#c05030'), {
          title: 'upload.jpg',
          format: 'image/jpeg',
          sourceType: 'trainedAlgorithmicMedia',
          generator: { ...GEN, engine: 'openai-images:gpt-image-1', model: 'gpt-image-1' },
          ingredients: [],
        })
      ).bytes;
      const { bytes, summary } = await p.sign(source, {
        title: `out.${format.split('/')[1]}`,
        format,
        sourceType: 'compositeWithTrainedAlgorithmicMedia',
        generator: GEN,
        ingredients: [
          {
            assetId: '11111111-1111-4111-8111-111111111111',
            title: 'mug.png',
            format: 'image/png',
            relationship: 'componentOf',
            bytes: product,
          },
          {
            assetId: '22222222-2222-4222-8222-222222222222',
            title: 'upload.jpg',
            format: 'image/jpeg',
            relationship: 'componentOf',
            bytes: signedProduct,
          },
        ],
      });
      const r = await readIndependently(bytes);
      expect(r, 'a manifest store').toBeDefined();
      expect(r?.failures).toEqual([]);
      expect(r?.isValid).toBe(true);
      expect(r?.successes).toEqual(expect.arrayContaining(['claimSignature.validated', hashCode]));
      expect(r?.claimGenerator).toMatchObject({ name: 'Atelier', version: '9.9.9' });
      expect(r?.actions).toEqual([
        {
          action: 'c2pa.created',
          digitalSourceType: sourceTypeUri('compositeWithTrainedAlgorithmicMedia'),
          softwareAgent: 'Atelier local engine',
          ingredients: 0,
        },
        { action: 'c2pa.placed', ingredients: 1 },
        { action: 'c2pa.placed', ingredients: 1 },
      ]);
      expect(r?.ingredients).toEqual([
        {
          title: 'mug.png',
          relationship: 'componentOf',
          instanceID: 'urn:atelier:asset:11111111-1111-4111-8111-111111111111',
          hasManifest: false,
        },
        {
          title: 'upload.jpg',
          relationship: 'componentOf',
          instanceID: 'urn:atelier:asset:22222222-2222-4222-8222-222222222222',
          hasManifest: true,
        },
      ]);
      expect(r?.manifests).toBe(2); // ours and the upload's own, carried along
      // Our summary (what the Asset body shows) says the same.
      expect(summary).toMatchObject({
        validation: 'valid',
        developmentCertificate: true,
        claimGenerator: 'Atelier 9.9.9',
        actions: ['c2pa.created', 'c2pa.placed', 'c2pa.placed'],
        digitalSourceType: sourceTypeUri('compositeWithTrainedAlgorithmicMedia'),
        softwareAgent: 'Atelier local engine 9.9.9',
      });
      expect(summary.ingredients).toEqual([
        expect.objectContaining({
          title: 'mug.png',
          assetId: '11111111-1111-4111-8111-111111111111',
          hasCredentials: false,
        }),
        expect.objectContaining({ title: 'upload.jpg', hasCredentials: true }),
      ]);
      expect(summary.ingredients[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);

      const broken = await readIndependently(tamper(bytes));
      expect(broken?.isValid).toBe(false);
      expect(broken?.failures.join(' ')).toMatch(/Hash\.mismatch/);
    },
  );

  it('makes the development certificate once (0600, key then chain) and warns that it is untrusted', async () => {
    const file = path.join(dir.dir, DEV_SIGNER_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const text = fs.readFileSync(file, 'utf8');
    expect(text.indexOf('PRIVATE KEY')).toBeLessThan(text.indexOf('CERTIFICATE'));
    const [leaf, ca] = (text.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? []).map(
      (c) => new X509Certificate(c),
    );
    expect(leaf?.ca).toBe(false);
    expect(leaf?.keyUsage).toEqual(['1.3.6.1.5.5.7.3.4']); // email protection, as C2PA wants
    expect(ca?.ca).toBe(true);
    expect(leaf?.verify(ca?.publicKey as never)).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/untrusted/);
    const again = await loadOrCreateDevCredentials(dir.dir);
    expect(again.created).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });

  it('reads nothing from a file without credentials', async () => {
    expect(await p.read(await picture('png'), 'image/png')).toBeUndefined();
  });
});

describe("the operator's certificate from the settings", () => {
  it('reads PEM text or files; a key that does not match the chain, or is not a key, is refused without echoing it', async () => {
    const dir = tempDir('atelier-c2pa-op-');
    const { credentials: dev } = await loadOrCreateDevCredentials(dir.dir);
    const text = fs.readFileSync(path.join(dir.dir, DEV_SIGNER_FILE), 'utf8');
    const chain = text.slice(text.indexOf('-----BEGIN CERTIFICATE'));
    const key = text.slice(0, text.indexOf('-----BEGIN CERTIFICATE'));
    fs.writeFileSync(dir.file('chain.pem'), chain);
    fs.writeFileSync(dir.file('key.pem'), key);
    const fromFiles = credentialsFromSettings({ certFile: dir.file('chain.pem'), keyFile: dir.file('key.pem') });
    expect(fromFiles).toMatchObject({ alg: 'es256', development: false, source: 'settings' });
    expect(fromFiles?.chain).toHaveLength(2);
    expect(credentialsFromSettings({ certPem: chain, keyPem: key })?.subject).toEqual(dev.subject);
    expect(credentialsFromSettings({})).toBeUndefined();
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    expect(() => parseCredentials(chain, other, 'settings')).toThrow(/does not match/);
    // From the settings the message names them (the start stops with that one line).
    expect(() => credentialsFromSettings({ certPem: chain, keyPem: other })).toThrow(
      /ATELIER_C2PA_CERT\(_FILE\) and ATELIER_C2PA_KEY\(_FILE\)\): the private key does not match/,
    );
    expect(() => credentialsFromSettings({ certFile: dir.file('none.pem'), keyPem: key })).toThrow(
      /cannot read .*ENOENT/,
    );
    const secret = 'not-a-key-SECRET-TEXT';
    expect(() => parseCredentials(chain, secret, 'settings')).toThrow(/not a PEM private key/);
    try {
      parseCredentials(chain, secret, 'settings');
    } catch (err) {
      expect((err as Error).message).not.toContain('SECRET');
    }
    dir.cleanup();
  });
});
