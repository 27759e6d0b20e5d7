import fs from 'node:fs';
import { afterAll, expect } from 'vitest';
import { tempDir } from '../../../test/fixtures/media/generate.ts';
import { MediaError } from './media-error.ts';

/**
 * Shared set-up of the media analyzer tests: a temporary folder removed after the suite that
 * created it (the test file, or the describe block it is called in), and the MediaError a call
 * rejects with.
 */
export interface TempFiles {
  /** Path of `name` in the folder (nothing is written). */
  file(name: string): string;
  /** Writes `bytes` to `name` in the folder and returns its path. */
  write(name: string, bytes: Buffer | string): string;
}

export function tempFiles(): TempFiles {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());
  return {
    file: tmp.file,
    write(name, bytes) {
      const file = tmp.file(name);
      fs.writeFileSync(file, bytes);
      return file;
    },
  };
}

/** The MediaError `p` rejects with; the test fails when it resolves or rejects with anything else. */
export async function failure(p: Promise<unknown>): Promise<MediaError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MediaError);
  return err as MediaError;
}
