/** The brand page's assets as it hands them to its tabs (brand.tsx), and which of them are pictures. */
import type { Asset } from '../../../sdk/src/index.ts';

export interface BrandAssets {
  assets: Asset[];
  loading: boolean;
  error: unknown;
  reload: () => void;
  /** An asset uploaded on this page, shown at once and kept until the list has it. */
  add: (a: Asset) => void;
  remove: (id: string) => void;
}

export const isPicture = (a: Asset) => a.metadata.fileType.startsWith('image/');
