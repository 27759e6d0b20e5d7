/**
 * Bundles the web console (console/src) into console/dist: index.html, app-<hash>.js, app-<hash>.css.
 * Run by `npm run console:build` (and so by `npm start`) and by the test global setup.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
export const CONSOLE_DIST = join(here, 'dist');
/** The sample product photos the console offers to a new organization (served at /console/samples/). */
export const SAMPLES_DIR = join(here, '..', 'samples');

export interface ConsoleBuild {
  outDir: string;
  files: { name: string; bytes: number; gzip: number }[];
}

export async function buildConsole(o: { outDir?: string; minify?: boolean } = {}): Promise<ConsoleBuild> {
  const outDir = resolve(o.outDir ?? CONSOLE_DIST);
  const result = await build({
    entryPoints: [join(here, 'src/main.tsx')],
    bundle: true,
    write: false,
    outdir: outDir,
    entryNames: 'app',
    format: 'esm',
    platform: 'browser',
    target: ['chrome111', 'firefox115', 'safari16.4'],
    minify: o.minify ?? true,
    sourcemap: false,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    // The SDK reads files only in Node (uploadFile with a path); the console never does.
    external: ['node:*'],
    legalComments: 'none',
    logLevel: 'silent',
  });
  const assets = new Map<string, { name: string; text: Uint8Array }>();
  for (const f of result.outputFiles) {
    const ext = f.path.endsWith('.css') ? 'css' : 'js';
    const hash = createHash('sha256').update(f.contents).digest('hex').slice(0, 10);
    assets.set(ext, { name: `app-${hash}.${ext}`, text: f.contents });
  }
  const js = assets.get('js');
  const css = assets.get('css');
  if (!js || !css) throw new Error('console build: expected one JS and one CSS output');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Atelier console</title>
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='4' fill='%23334155'/%3E%3C/svg%3E">
<link rel="stylesheet" href="./${css.name}">
<script type="module" src="./${js.name}"></script>
</head>
<body>
<div id="app"><noscript>The Atelier console needs JavaScript.</noscript></div>
</body>
</html>
`;
  await mkdir(outDir, { recursive: true });
  // Old hashed bundles go: the folder holds exactly one build.
  for (const name of await readdir(outDir)) {
    if (/^app(-[0-9a-f]+)?\.(js|css)$/.test(name)) await rm(join(outDir, name));
  }
  await mkdir(join(outDir, 'samples'), { recursive: true });
  for (const name of await readdir(SAMPLES_DIR)) {
    if (name.endsWith('.png')) await copyFile(join(SAMPLES_DIR, name), join(outDir, 'samples', name));
  }
  await Promise.all([
    writeFile(join(outDir, js.name), js.text),
    writeFile(join(outDir, css.name), css.text),
    writeFile(join(outDir, 'index.html'), html),
  ]);
  const files = [
    { name: js.name, text: js.text },
    { name: css.name, text: css.text },
    { name: 'index.html', text: new TextEncoder().encode(html) },
  ].map((f) => ({ name: f.name, bytes: f.text.length, gzip: gzipSync(f.text).length }));
  return { outDir, files };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await buildConsole();
  const total = out.files.reduce((s, f) => ({ bytes: s.bytes + f.bytes, gzip: s.gzip + f.gzip }), {
    bytes: 0,
    gzip: 0,
  });
  process.stderr.write(
    `atelier: console built in ${out.outDir} (${(total.bytes / 1024).toFixed(1)} KiB, ${(total.gzip / 1024).toFixed(1)} KiB gzipped)\n`,
  );
}
