import { BMFF, JPEG, PNG } from '@trustnxt/c2pa-ts/asset';
import { SuperBox } from '@trustnxt/c2pa-ts/jumbf';
import { ActionAssertion, IngredientAssertion, ManifestStore, ValidationResult } from '@trustnxt/c2pa-ts/manifest';

/**
 * An independent C2PA reader for the tests: @trustnxt/c2pa-ts, a TypeScript implementation that
 * shares no code with c2pa-rs (which signs). It checks the claim signature and the hard-binding
 * hashes; it has no trust list, so the tests assert those checks, not trust in the signer.
 */
// c2pa-ts admits only HEIF brands by default; ffmpeg's MP4s are `isom`.
(BMFF as unknown as { canReadBrands: Set<string> }).canReadBrands.add('isom');

export interface IndependentReading {
  isValid: boolean;
  failures: string[];
  successes: string[];
  claimGenerator: { name?: string; version?: string };
  actions: { action: string; digitalSourceType?: string; softwareAgent?: string; ingredients: number }[];
  ingredients: { title?: string; relationship?: string; instanceID?: string; hasManifest: boolean }[];
  manifests: number;
}

/** Reads and validates a file's C2PA manifest store with c2pa-ts; undefined when it has none. */
export async function readIndependently(bytes: Buffer): Promise<IndependentReading | undefined> {
  const buf = new Uint8Array(bytes);
  const asset = JPEG.canRead(buf)
    ? new JPEG(buf)
    : PNG.canRead(buf)
      ? new PNG(buf)
      : BMFF.canRead(buf)
        ? new BMFF(buf)
        : undefined;
  if (!asset) throw new Error('c2pa-ts cannot read this format');
  const jumbf = asset.getManifestJUMBF();
  if (!jumbf) return undefined;
  let result: ValidationResult;
  let store: ManifestStore | undefined;
  try {
    store = ManifestStore.read(SuperBox.fromBuffer(jumbf as Uint8Array<ArrayBuffer>));
    result = await store.validate(asset);
  } catch (err) {
    result = ValidationResult.fromError(err as Error);
  }
  const m = store?.getActiveManifest();
  const assertions = m?.assertions?.assertions ?? [];
  return {
    isValid: result.isValid,
    failures: result.statusEntries.filter((s) => !s.success).map((s) => s.code),
    successes: [...new Set(result.statusEntries.filter((s) => s.success).map((s) => s.code))],
    claimGenerator: {
      ...(m?.claim?.claimGeneratorName ? { name: m.claim.claimGeneratorName } : {}),
      ...(m?.claim?.claimGeneratorVersion ? { version: m.claim.claimGeneratorVersion } : {}),
    },
    actions: assertions
      .filter((a): a is ActionAssertion => a instanceof ActionAssertion)
      .flatMap((a) =>
        a.actions.map((x) => ({
          action: x.action,
          ...(x.digitalSourceType ? { digitalSourceType: x.digitalSourceType } : {}),
          ...(x.softwareAgent ? { softwareAgent: x.softwareAgent.name } : {}),
          ingredients: x.parameters?.ingredients?.length ?? 0,
        })),
      ),
    ingredients: assertions
      .filter((a): a is IngredientAssertion => a instanceof IngredientAssertion)
      .map((i) => ({
        ...(i.title ? { title: i.title } : {}),
        ...(i.relationship ? { relationship: i.relationship } : {}),
        ...(i.instanceID ? { instanceID: i.instanceID } : {}),
        hasManifest: i.activeManifest !== undefined || i.c2pa_manifest !== undefined,
      })),
    manifests: store?.manifests.length ?? 0,
  };
}

/** The offset of a byte inside the picture or media data (IDAT, the JPEG scan, mdat), to tamper with. */
export function mediaDataOffset(bytes: Buffer): number {
  if (bytes[0] === 0x89) {
    const at = bytes.indexOf('IDAT', 8, 'latin1');
    return at + 4 + 10;
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    const sos = bytes.indexOf(Buffer.from([0xff, 0xda]));
    return sos + 2 + bytes.readUInt16BE(sos + 2) + 10;
  }
  const mdat = bytes.indexOf('mdat', 0, 'latin1');
  return mdat + 4 + 100;
}

export function tamper(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  const at = mediaDataOffset(out);
  out[at] = (out[at] ?? 0) ^ 0xff;
  return out;
}
