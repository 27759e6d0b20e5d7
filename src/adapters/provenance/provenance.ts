import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { coseSign1 } from './cose.ts';
import {
  credentialsFromSettings,
  loadOrCreateDevCredentials,
  type SignerSettings,
  type SigningCredentials,
} from './credentials.ts';
import { type IngredientFact, manifestDefinition, type ProvenanceFacts, xmpPacket } from './manifest.ts';
import { BytesBlob, loadC2pa } from './wasm.ts';
import { embedXmp } from './xmp-embed.ts';

/** Space kept in the manifest for the COSE signature (the chain of two P-256 certificates is ~1.2 kB). */
const RESERVE_SIZE = 10_240;
/** Ingredients larger than this are named by hash only (not handed to c2pa-rs to read their own credentials). */
const INGREDIENT_READ_MAX = 64 * 1024 * 1024;
/** c2pa-rs settings: no thumbnails (the file is its own preview); trust is the viewer's to judge. */
const BUILDER_CONTEXT = JSON.stringify({ builder: { thumbnail: { enabled: false } } });
const READER_CONTEXT = JSON.stringify({ verify: { verify_trust: false } });

/** An input the file was made from, with its bytes (hashed here; read by c2pa-rs for its own credentials). */
export interface IngredientInput extends Omit<IngredientFact, 'sha256'> {
  bytes: Buffer;
}

/**
 * What a file's Content Credentials claim, as kept with a generated asset and shown in the Asset
 * body (`contentCredentials`): read back from the signed file by c2pa-rs, not from our own facts.
 */
export interface CredentialsSummary {
  /** `valid`: the signature and the hashes check out (trust in the signer is the viewer's call). */
  validation: 'valid' | 'invalid';
  /** The active manifest's label (urn:c2pa:…). */
  manifest: string;
  /** Who signed: the certificate's common name and organization. */
  signer: string;
  /** Signed with the self-signed development certificate: validators show it as untrusted. */
  developmentCertificate: boolean;
  claimGenerator: string;
  actions: string[];
  digitalSourceType?: string;
  softwareAgent?: string;
  ingredients: { title: string; relationship: string; assetId?: string; sha256?: string; hasCredentials: boolean }[];
}

export interface ProvenanceDeps {
  settings: SignerSettings;
  dataDir: string;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** Atelier's version (package.json). */
  version: string;
  /** Scaled mode: every process must sign with the same certificate. */
  scaled?: boolean;
  /** Where the signing runs (the engine threads: `signWith` there); default this thread. */
  signOn?: typeof signWith;
}

/** Atelier's version, as package.json says (the claim generator's version). */
export function atelierVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', '..', '..', 'package.json'), 'utf8'));
  return String(pkg.version);
}

/** The media type of bytes c2pa-rs can read as an ingredient, by their magic; undefined: other. */
export function ingredientFormat(b: Buffer): string | undefined {
  if (b.length < 12) return undefined;
  if (b[0] === 0x89 && b.toString('latin1', 1, 4) === 'PNG') return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8) return 'image/jpeg';
  if (b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  if (b.toString('latin1', 0, 3) === 'GIF') return 'image/gif';
  if (b.toString('latin1', 0, 2) === 'II' || b.toString('latin1', 0, 2) === 'MM') return 'image/tiff';
  if (b.toString('latin1', 4, 8) === 'ftyp') return 'video/mp4';
  return undefined;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * Content Credentials (C2PA) for generated files: a manifest built from plain facts, signed with
 * the operator's certificate (or a development one made into the data folder), embedded in the
 * PNG, JPEG or MP4, with the same facts as XMP in the images. c2pa-rs (wasm) builds and embeds the
 * manifest; the COSE signature is made here with node:crypto.
 */
export function createProvenance(deps: ProvenanceDeps) {
  let loading: Promise<SigningCredentials> | undefined;

  async function load(): Promise<SigningCredentials> {
    const fromSettings = credentialsFromSettings(deps.settings);
    if (fromSettings) {
      deps.logger.info(
        { signer: fromSettings.subject, alg: fromSettings.alg },
        'Content Credentials: generated files are signed with the operator certificate from the settings',
      );
      return fromSettings;
    }
    const { credentials, created } = await loadOrCreateDevCredentials(deps.dataDir);
    deps.logger.warn(
      { file: credentials.source, created },
      `Content Credentials: generated files are signed with a self-signed development certificate${created ? ' (made now)' : ''}; ` +
        'validators and viewers will show the signer as untrusted. Set ATELIER_C2PA_CERT_FILE and ATELIER_C2PA_KEY_FILE ' +
        `to sign as yourself${deps.scaled ? ' (in the scaled mode every serve and worker process needs them, or they sign with different certificates)' : ''}`,
    );
    return credentials;
  }

  /** The signer, loaded (or made) once; a failure is not kept, so the next call tries again. */
  function credentials(): Promise<SigningCredentials> {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  }

  return {
    /** Loads the signer now (start-up: the warning about a development certificate comes at once). */
    async ready(): Promise<Pick<SigningCredentials, 'alg' | 'subject' | 'development'>> {
      const c = await credentials();
      return { alg: c.alg, subject: c.subject, development: c.development };
    },

    /**
     * The file with the facts embedded and signed: XMP (images), then a C2PA manifest store with
     * the actions, the generator and the ingredients (their bytes read for their own credentials).
     * Runs where `deps.signOn` says (the engine threads), else here.
     */
    async sign(bytes: Buffer, facts: SigningFacts): Promise<SignedFile> {
      return (deps.signOn ?? signWith)(await credentials(), bytes, facts);
    },

    /** What a file's Content Credentials claim, or undefined when it has none. */
    read: (bytes: Buffer, format: string) => readSummary(bytes, format),
  };
}

/** The facts a file is signed with, its inputs with their bytes. */
export type SigningFacts = Omit<ProvenanceFacts, 'ingredients'> & { ingredients: IngredientInput[] };

export interface SignedFile {
  bytes: Buffer;
  summary: CredentialsSummary;
}

/** What a file's Content Credentials claim (checked against `creds` when given), or undefined without any. */
async function readSummary(
  bytes: Buffer,
  format: string,
  creds?: SigningCredentials,
): Promise<CredentialsSummary | undefined> {
  const c2pa = await loadC2pa();
  const reader = await c2pa.WasmReader.fromBytes(format, new Uint8Array(bytes), READER_CONTEXT).catch(() => undefined);
  if (!reader) return undefined; // no manifest store (or none c2pa-rs can read)
  try {
    return summarize(JSON.parse(reader.json()), creds);
  } finally {
    reader.free();
  }
}

/**
 * Signs a file with these credentials (CPU work: c2pa-rs hashes the whole file, twice counting the
 * read-back). A plain function of its arguments, so the engine threads can run it: KeyObjects and
 * Buffers cross a thread boundary.
 */
export async function signWith(creds: SigningCredentials, bytes: Buffer, facts: SigningFacts): Promise<SignedFile> {
  const c2pa = await loadC2pa();
  const ingredients: IngredientFact[] = facts.ingredients.map(({ bytes: b, ...i }) => ({
    ...i,
    sha256: sha256(b),
  }));
  const { definition, ingredients: defs } = manifestDefinition({ ...facts, ingredients });
  const source = facts.format === 'video/mp4' ? bytes : embedXmp(bytes, facts.format, xmpPacket(facts));
  const builder = c2pa.WasmBuilder.fromJson(JSON.stringify(definition), BUILDER_CONTEXT);
  try {
    for (const [i, d] of defs.entries()) {
      const b = facts.ingredients[i]?.bytes;
      const json = JSON.stringify(d.definition);
      if (b && b.length <= INGREDIENT_READ_MAX) {
        try {
          await builder.addIngredientFromBlob(json, d.fact.format, new BytesBlob(b));
          continue;
        } catch {
          // A format c2pa-rs does not read (GIF, TIFF...): named by id and hash only.
        }
      }
      builder.addIngredient(json);
    }
    const signed = await builder.sign(
      {
        alg: creds.alg,
        reserveSize: RESERVE_SIZE,
        sign: async (claim) =>
          coseSign1(claim, {
            alg: creds.alg,
            key: creds.key,
            chain: creds.chain,
            reserveSize: RESERVE_SIZE,
          }) as Uint8Array<ArrayBuffer>,
      },
      [],
      facts.format,
      new BytesBlob(source),
    );
    const out = Buffer.from(signed.buffer, signed.byteOffset, signed.byteLength);
    const summary = await readSummary(out, facts.format, creds);
    if (!summary) throw new Error('the signed file has no readable Content Credentials');
    return { bytes: out, summary };
  } finally {
    builder.free();
  }
}

export type Provenance = ReturnType<typeof createProvenance>;

interface ReaderJson {
  active_manifest?: string;
  manifests?: Record<string, ReaderManifest>;
  validation_state?: string;
}
interface ReaderManifest {
  claim_generator_info?: { name?: string; version?: string }[];
  assertions?: { label: string; data?: { actions?: ReaderAction[] } }[];
  ingredients?: {
    title?: string;
    relationship?: string;
    instance_id?: string;
    active_manifest?: string;
    metadata?: Record<string, unknown>;
  }[];
  signature_info?: { common_name?: string; issuer?: string };
}
interface ReaderAction {
  action: string;
  digitalSourceType?: string;
  softwareAgent?: string | { name?: string; version?: string };
}

const ASSET_URN = 'urn:atelier:asset:';

/** The reader's JSON, reduced to what the Asset body shows. */
export function summarize(
  json: ReaderJson,
  creds?: Pick<SigningCredentials, 'development'>,
): CredentialsSummary | undefined {
  const label = json.active_manifest;
  const m = label ? json.manifests?.[label] : undefined;
  if (!label || !m) return undefined;
  const actions = (m.assertions ?? [])
    .filter((a) => a.label.startsWith('c2pa.actions'))
    .flatMap((a) => a.data?.actions ?? []);
  const first = actions[0];
  const agent = first?.softwareAgent;
  const gen = m.claim_generator_info?.[0];
  const signer = m.signature_info?.common_name ?? m.signature_info?.issuer ?? 'unknown';
  return {
    validation: json.validation_state === 'Invalid' ? 'invalid' : 'valid',
    manifest: label,
    signer,
    developmentCertificate:
      creds?.development ?? /\(development certificate\)|development CA/.test(m.signature_info?.issuer ?? ''),
    claimGenerator: [gen?.name, gen?.version].filter(Boolean).join(' '),
    actions: actions.map((a) => a.action),
    ...(first?.digitalSourceType ? { digitalSourceType: first.digitalSourceType } : {}),
    ...(agent
      ? { softwareAgent: typeof agent === 'string' ? agent : [agent.name, agent.version].filter(Boolean).join(' ') }
      : {}),
    ingredients: (m.ingredients ?? []).map((i) => {
      const hash = i.metadata?.['org.atelier.sha256'];
      return {
        title: i.title ?? '',
        relationship: i.relationship ?? 'componentOf',
        ...(i.instance_id?.startsWith(ASSET_URN) ? { assetId: i.instance_id.slice(ASSET_URN.length) } : {}),
        ...(typeof hash === 'string' ? { sha256: hash } : {}),
        hasCredentials: i.active_manifest !== undefined,
      };
    }),
  };
}
