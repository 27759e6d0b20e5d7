import { createSign, type KeyObject, sign as oneShotSign, constants } from 'node:crypto';
import { Encoder, Tag } from 'cbor-x';

/** The signing algorithms Atelier signs with: the c2pa name, the COSE id, how node:crypto signs. */
export const SIGNING_ALGS = {
  es256: { cose: -7, hash: 'SHA256' },
  es384: { cose: -35, hash: 'SHA384' },
  es512: { cose: -36, hash: 'SHA512' },
  ps256: { cose: -37, hash: 'SHA256' },
  ed25519: { cose: -8, hash: null },
} as const;
export type SigningAlg = keyof typeof SIGNING_ALGS;

const cbor = new Encoder({ useRecords: false, mapsAsObjects: false, variableMapSize: true, tagUint8Array: false });

/** The x5chain header label (RFC 9360). */
const X5CHAIN = 33;
const COSE_SIGN1_TAG = 18;

function rawSignature(alg: SigningAlg, key: KeyObject, data: Buffer): Buffer {
  if (alg === 'ed25519') return oneShotSign(null, data, key);
  const s = createSign(SIGNING_ALGS[alg].hash);
  s.update(data);
  if (alg === 'ps256') {
    return s.sign({ key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  }
  // COSE wants ECDSA signatures as r||s, not DER.
  return s.sign({ key, dsaEncoding: 'ieee-p1363' });
}

/**
 * A tagged COSE_Sign1 over a C2PA claim, as c2pa-rs would make it: the algorithm and the
 * certificate chain (end-entity first) in the protected header, a detached payload (the claim),
 * and the unprotected header padded so the whole structure fills `reserveSize` bytes (the space
 * the manifest kept for it). The wasm Builder's signer callback must return exactly this, since it
 * passes no certificates of its own.
 */
export function coseSign1(
  claim: Uint8Array,
  o: { alg: SigningAlg; key: KeyObject; chain: Buffer[]; reserveSize: number },
): Uint8Array {
  const x5chain = o.chain.length === 1 ? o.chain[0] : o.chain;
  const protectedHeader: Buffer = cbor.encode(
    new Map<number, unknown>([
      [1, SIGNING_ALGS[o.alg].cose],
      [X5CHAIN, x5chain],
    ]),
  );
  const toBeSigned: Buffer = cbor.encode(['Signature1', protectedHeader, new Uint8Array(0), claim]);
  const signature = rawSignature(o.alg, o.key, toBeSigned);
  const build = (pad: number): Buffer =>
    cbor.encode(new Tag([protectedHeader, new Map([['pad', new Uint8Array(pad)]]), null, signature], COSE_SIGN1_TAG));
  const bare = build(0);
  if (bare.length > o.reserveSize) throw new Error(`COSE signature (${bare.length} bytes) exceeds the reserved size`);
  // The pad's own length prefix grows by a byte or two with its size; shrink until it fits.
  let pad = o.reserveSize - bare.length;
  let out = build(pad);
  while (out.length > o.reserveSize && pad > 0) out = build(--pad);
  return new Uint8Array(out);
}
