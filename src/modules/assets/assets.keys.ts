/** Where an asset's objects live in storage: one folder per asset, so deleting it is one prefix. */
export const assetFolder = (orgId: string, assetId: string) => `orgs/${orgId}/assets/${assetId}/`;
export const originalKey = (orgId: string, assetId: string) => `${assetFolder(orgId, assetId)}original`;
/**
 * Where an upload link writes. Processing copies the checked bytes to `originalKey`, so a second
 * PUT to a still-valid link can never replace a confirmed asset's bytes after they were sniffed.
 */
export const uploadKey = (orgId: string, assetId: string) => `${assetFolder(orgId, assetId)}upload`;
/** A generated video's preview clip (short, low resolution), next to its original. */
export const previewKey = (orgId: string, assetId: string) => `${assetFolder(orgId, assetId)}preview.mp4`;
export const thumbnailKey = (orgId: string, assetId: string, ext: 'webp' | 'jpeg') =>
  `${assetFolder(orgId, assetId)}thumbnail.${ext}`;
const LAYER_FILES = { plate: 'plate.png', product: 'product.png', info: 'info.json' } as const;
/**
 * A generated scene's layers for the video engine, next to its original (so they go with the
 * asset's folder): its clean plate, its product layer and `info` (the floor line).
 */
export const layerKey = (orgId: string, assetId: string, layer: keyof typeof LAYER_FILES) =>
  `${assetFolder(orgId, assetId)}layers/${LAYER_FILES[layer]}`;

/**
 * A file name safe to store and to echo in Content-Disposition: the last path segment, no
 * control or bidi-override characters, no leading dots, at most 255 characters (by code point).
 */
export function sanitizeFileName(input: string): string {
  const last = input.split(/[\\/]/).pop() ?? '';
  const cleaned = last
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/[<>:"|?*]/g, '_')
    .trim()
    .replace(/^\.+/, '');
  const chars = [...cleaned];
  const bounded = chars.length > 255 ? keepExtension(chars) : cleaned;
  return bounded.length ? bounded : 'file';
}

function keepExtension(chars: string[]): string {
  const s = chars.join('');
  const dot = s.lastIndexOf('.');
  const ext = dot > 0 && s.length - dot <= 16 ? s.slice(dot) : '';
  return [...s.slice(0, s.length - ext.length)].slice(0, 255 - [...ext].length).join('') + ext;
}
