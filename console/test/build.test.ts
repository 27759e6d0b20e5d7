import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../build.ts';

describe('console build', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('writes index.html with one hashed script and stylesheet, small enough for a fast first load', async () => {
    dir = await mkdtemp(join(tmpdir(), 'atelier-console-'));
    const out = await buildConsole({ outDir: dir });
    const names = (await readdir(dir)).sort();
    expect(names).toHaveLength(4);
    // The sample product photos a new organization is offered.
    expect((await readdir(join(dir, 'samples'))).sort()).toEqual(['cap-red.png', 'mug-set.png', 'notebook.png']);
    const js = names.find((n) => /^app-[0-9a-f]{10}\.js$/.test(n));
    const css = names.find((n) => /^app-[0-9a-f]{10}\.css$/.test(n));
    expect(js && css).toBeTruthy();
    const html = await readFile(join(dir, 'index.html'), 'utf8');
    expect(html).toContain(`src="./${js}"`);
    expect(html).toContain(`href="./${css}"`);
    expect(html).toContain('<meta name="viewport"');
    const gzip = out.files.reduce((s, f) => s + f.gzip, 0);
    expect(gzip).toBeLessThan(60 * 1024);
    // A rebuild replaces the old bundle instead of piling up files.
    await buildConsole({ outDir: dir });
    expect(await readdir(dir)).toHaveLength(4);
  });
});
