import { createPrivateKey, randomBytes, webcrypto, X509Certificate, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SigningAlg } from './cose.ts';

/** The operator's signing settings (config.ts, ATELIER_C2PA_*): PEM text, or files holding it. */
export interface SignerSettings {
  /** The certificate chain, end-entity first, then its intermediates (PEM). */
  certPem?: string;
  certFile?: string;
  /** The end-entity's private key (PEM, PKCS#8 or SEC1/PKCS#1). */
  keyPem?: string;
  keyFile?: string;
}

/** A loaded signer: never logged, never sent anywhere (only the certificates go into manifests). */
export interface SigningCredentials {
  alg: SigningAlg;
  key: KeyObject;
  /** DER certificates, end-entity first. */
  chain: Buffer[];
  /** The end-entity's subject, as validators show it (CN, O). */
  subject: { commonName?: string; organization?: string };
  /** The self-signed development certificate (validators show it as untrusted). */
  development: boolean;
  /** Where it came from, for the start-up line: `settings`, or the dev file's path. */
  source: string;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

export class SignerSettingsError extends Error {}

/** The c2pa algorithm a key signs with: ES256/384/512 by curve, PS256 for RSA, Ed25519. */
export function algorithmOf(key: KeyObject): SigningAlg {
  const type = key.asymmetricKeyType;
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'es256';
    if (curve === 'secp384r1') return 'es384';
    if (curve === 'secp521r1') return 'es512';
    throw new SignerSettingsError(`the key's curve ${curve} is not one C2PA signs with (P-256, P-384, P-521)`);
  }
  if (type === 'rsa' || type === 'rsa-pss') return 'ps256';
  if (type === 'ed25519') return 'ed25519';
  throw new SignerSettingsError(`a ${type} key is not one C2PA signs with (EC, RSA or Ed25519)`);
}

function subjectOf(cert: X509Certificate): SigningCredentials['subject'] {
  const field = (name: string) =>
    cert.subject
      .split('\n')
      .find((l) => l.startsWith(`${name}=`))
      ?.slice(name.length + 1);
  const commonName = field('CN');
  const organization = field('O');
  return { ...(commonName ? { commonName } : {}), ...(organization ? { organization } : {}) };
}

/** Parses a chain and key (PEM) and checks that they belong together. */
export function parseCredentials(
  certPem: string,
  keyPem: string,
  source: string,
  development = false,
): SigningCredentials {
  const pems = certPem.match(PEM_CERT) ?? [];
  if (pems.length === 0) throw new SignerSettingsError('the certificate setting holds no PEM certificate');
  const certs = pems.map((p) => new X509Certificate(p));
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    // Not the key's text in the message: it may be the key.
    throw new SignerSettingsError('the key setting is not a PEM private key');
  }
  const leaf = certs[0] as X509Certificate;
  if (!leaf.checkPrivateKey(key)) {
    throw new SignerSettingsError("the private key does not match the chain's first (end-entity) certificate");
  }
  return { alg: algorithmOf(key), key, chain: certs.map((c) => c.raw), subject: subjectOf(leaf), development, source };
}

/**
 * The operator's credentials from the settings, or undefined when none are set. Any problem is a
 * SignerSettingsError naming the settings (the start stops with its one line), never the key.
 */
export function credentialsFromSettings(s: SignerSettings): SigningCredentials | undefined {
  const names = 'ATELIER_C2PA_CERT(_FILE) and ATELIER_C2PA_KEY(_FILE)';
  try {
    const cert = s.certPem ?? (s.certFile ? fs.readFileSync(s.certFile, 'utf8') : undefined);
    const key = s.keyPem ?? (s.keyFile ? fs.readFileSync(s.keyFile, 'utf8') : undefined);
    if (!cert || !key) return undefined;
    return parseCredentials(cert, key, 'settings');
  } catch (err) {
    const why =
      err instanceof SignerSettingsError
        ? err.message
        : (err as NodeJS.ErrnoException).code
          ? `cannot read ${(err as NodeJS.ErrnoException).path ?? 'a file'} (${(err as NodeJS.ErrnoException).code})`
          : 'the certificate chain is not valid PEM';
    throw new SignerSettingsError(`Content Credentials signer (${names}): ${why}`);
  }
}

export const DEV_SIGNER_FILE = 'c2pa-dev-signer.pem';

/**
 * The development signer, made once into `<dataDir>/c2pa-dev-signer.pem` (mode 0600: its private
 * key, then its chain): a P-256 end-entity certificate as C2PA wants one (not a CA, digital
 * signature, the email-protection purpose, key identifiers) issued by a CA made with it and thrown
 * away. Validators check the signature and hashes but show the signer as unknown (untrusted).
 */
export async function loadOrCreateDevCredentials(
  dataDir: string,
  o: { operatorName?: string } = {},
): Promise<{ credentials: SigningCredentials; created: boolean }> {
  const file = path.join(dataDir, DEV_SIGNER_FILE);
  let created = false;
  if (!fs.existsSync(file)) {
    const pem = await makeDevSigner(o.operatorName ?? 'Atelier development signer');
    // Written whole to a temp file, then linked into place: the first start to link wins.
    fs.mkdirSync(dataDir, { recursive: true });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, pem, { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
      created = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const text = fs.readFileSync(file, 'utf8');
  return { credentials: parseCredentials(text, text, file, true), created };
}

const YEAR_MS = 365 * 24 * 3600 * 1000;

async function makeDevSigner(name: string): Promise<string> {
  // Loaded only here (once per data folder): it brings a Reflect metadata polyfill with it.
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as never);
  const crypto = webcrypto;
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const notBefore = new Date(Date.now() - 24 * 3600 * 1000);
  const notAfter = new Date(Date.now() + 10 * YEAR_MS);
  const serial = () => `01${randomBytes(15).toString('hex')}`;
  const caKeys = await crypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const caName = 'CN=Atelier development CA (untrusted), O=Atelier';
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: caName,
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const keys = await crypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const safe = name.replace(/[,=+<>#;"\\]/g, ' ').slice(0, 60);
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${safe}, O=Atelier (development certificate)`,
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingKey: caKeys.privateKey,
    publicKey: keys.publicKey,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.emailProtection], false),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', keys.privateKey));
  const keyPem = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({
    format: 'pem',
    type: 'pkcs8',
  });
  // The CA's private key is not kept: nothing else is ever issued by it.
  return `${keyPem}${leaf.toString('pem')}\n${ca.toString('pem')}\n`;
}
