/**
 * Refinement steering benchmark: does a steered regeneration score higher on its objective?
 *
 * For each product cut-out of FIXTURES (transparent PNGs; default /work/shared/fixtures/product-
 * images, read-only) and each objective (attention_potential, conversion, brand_awareness):
 *
 * 1. a source variation from the local scene engine (1:1, 1024 px, variationIndex 1 — the smaller,
 *    thirds-left layout — seed 1234, brand palette PALETTE, no steering), scored with scoreImage
 *    (the engine's product mask and the palette);
 * 2. `planSteering` from the source's features (the brand has a logo: a generated SVG wordmark,
 *    added to the plan's `logo` as the caller would);
 * 3. the regeneration with that steering (same seed), scored again (with the logo box when a logo
 *    was placed);
 * 4. a second round on top of the first (`previous` = the first plan's steering): refinements
 *    compound.
 *
 * The same again (first round only) with the source made on a backdrop from the local environment
 * engine (a wooden table, marble, a concrete loft, a linen-draped table, in turn), where the
 * backdrop itself has texture and detail to calm: `environment` in the output.
 *
 * Reports per objective the share of refinements whose steered score rose (goal ≥ 90%), the mean,
 * median and smallest gain, the other two scores' mean change, how often each lever was pulled,
 * the second round's rise share and gain; for the refinements that pulled the brand colour lever,
 * the brand colours' share of the frame (the critique's palette coverage) and brand_awareness's
 * palette term, source → refinement (`brandColour`: it must still read as the brand's colour once
 * lit and shaded as a set); and timings (source and refined generation, scoring, planning). Writes
 * a contact sheet to bench/results/refinements.png: for several products, the source and its
 * refinement per objective, labelled with the scores before → after, the levers and the palette
 * coverage.
 *
 * Prints JSON; exits 1 when an objective's first-round rise share (studio or environment) is under
 * BENCH_MIN_RISE_SHARE (0.9). Skips (exit 0) when the fixtures are not there.
 *
 *   npm run bench -- refinement          # BENCH_REFINE_LIMIT=6 to run on the first six only
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';
import { type Scores, scoreImage } from '../src/engines/critique/scores.ts';
import { createLocalSceneEngine } from '../src/engines/image/local/local-scene-engine.ts';
import type { SceneRequest, SceneResult, SceneSteering } from '../src/engines/image/scene-engine.ts';
import { planSteering, type SteerObjective, type SteeringPlan } from '../src/engines/image/steering.ts';

const FIXTURES = process.env.BENCH_REFINE_FIXTURES ?? '/work/shared/fixtures/product-images';
const LIMIT = Number(process.env.BENCH_REFINE_LIMIT ?? 0);
const MIN_RISE_SHARE = Number(process.env.BENCH_MIN_RISE_SHARE ?? 0.9);
const SIZE = 1024;
const SOURCE_VARIATION = 1;
const SEED = 1234;
const PALETTE = ['#d62828', '#ffffff'];
const OBJECTIVES: SteerObjective[] = ['attention_potential', 'conversion', 'brand_awareness'];
const SHORT: Record<SteerObjective, string> = { attention_potential: 'A', conversion: 'C', brand_awareness: 'B' };
const SHEET_ENVIRONMENT = ['solidus_cap_black_2', 'solidus_tshirt'];
const SHEET_PRODUCTS = [
  'solidus_cap_black_1',
  'solidus_bottles_2',
  'solidus_hoodie_red_1',
  'solidus_tshirt',
  'solidus_mug_set',
  'solidus_cap_gray_2',
  'solidus_sticker',
];
const RESULTS = path.join(import.meta.dirname, 'results');
const ENVIRONMENTS = [
  'on a warm oak wooden table, soft window light',
  'on a polished marble table',
  'raw concrete floor, industrial loft',
  'on a table with a linen cloth, morning light',
];

/** The brand logo: a wordmark with a square mark, as an SVG rendered by sharp. */
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="620" height="140">
  <rect x="4" y="22" width="96" height="96" rx="20" fill="#d62828"/>
  <path d="M30 52 h44 v14 h-30 v8 h30 v30 h-44 v-14 h30 v-8 h-30z" fill="#ffffff"/>
  <text x="122" y="106" font-family="DejaVu Sans, sans-serif" font-weight="bold" font-size="86" letter-spacing="4" fill="#1d1d1d">SOLIDUS</text>
</svg>`;

const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const signed = (n: number) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(1)}`;
const pct = (n: number) => `${Math.round(n * 100)}%`;
/** The brand colours' weighted share of the frame (the critique's palette coverage). */
const coverage = (s: Scored) => s.features.palette?.weightedCoverage ?? 0;
/** The brand_awareness score's palette term for a coverage (scores.ts: 1 − exp(−coverage / 0.25)). */
const paletteTerm = (c: number) => 1 - Math.exp(-c / 0.25);

interface Scored {
  res: SceneResult;
  scores: Scores;
  features: ReturnType<typeof scoreImage>['features'];
  generateMs: number;
  scoreMs: number;
}

interface Refinement {
  objective: SteerObjective;
  plan: SteeringPlan;
  planMs: number;
  after: Scored;
  /** The second round (a refinement of this refinement). */
  second?: { plan: SteeringPlan; after: Scored };
}

function fixtureNames(): string[] {
  const names = fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.png'))
    .sort()
    .map((f) => path.basename(f, '.png'));
  return LIMIT > 0 ? names.slice(0, LIMIT) : names;
}

/** The plan's steering as the caller sends it: the brand logo's bytes added when it asks for one. */
function withLogo(steering: SceneSteering, logo: Buffer): SceneSteering {
  return steering.logo ? { ...steering, logo: { ...steering.logo, bytes: logo } } : steering;
}

async function main(): Promise<void> {
  if (!fs.existsSync(FIXTURES)) {
    process.stdout.write(`${JSON.stringify({ skipped: `no fixtures at ${FIXTURES}` })}\n`);
    return;
  }
  const logo = await sharp(Buffer.from(LOGO_SVG)).png().toBuffer();
  const engine = createLocalSceneEngine({ longSide: SIZE });
  const base = (bytes: Buffer): SceneRequest => ({
    prompt: 'studio product shot',
    aspectRatio: '1:1',
    width: SIZE,
    height: SIZE,
    variationIndex: SOURCE_VARIATION,
    seed: SEED,
    products: [{ bytes }],
    palette: PALETTE,
  });
  const run = async (req: SceneRequest): Promise<Scored> => {
    let t = performance.now();
    const res = await engine.generate(req);
    const generateMs = performance.now() - t;
    const { data, info } = await sharp(res.png).raw().toBuffer({ resolveWithObject: true });
    t = performance.now();
    const { scores, features } = scoreImage(
      { data, width: info.width, height: info.height, channels: info.channels },
      { productMask: res.productMask, palette: PALETTE, ...(res.logoBoxes ? { logoBoxes: res.logoBoxes } : {}) },
    );
    return { res, scores, features, generateMs, scoreMs: performance.now() - t };
  };

  // Warm-up (libvips, the JIT), so the first product is not charged for it.
  const names = fixtureNames();
  await run(base(fs.readFileSync(path.join(FIXTURES, `${names[0]}.png`))));

  const perProduct: { name: string; source: Scored; refinements: Refinement[] }[] = [];
  const envSheet: { name: string; objective: SteerObjective; source: Scored; after: Scored; plan: SteeringPlan }[] = [];
  for (const name of names) {
    const bytes = fs.readFileSync(path.join(FIXTURES, `${name}.png`));
    const source = await run(base(bytes));
    const refinements: Refinement[] = [];
    for (const objective of OBJECTIVES) {
      let t = performance.now();
      const plan = planSteering(
        objective,
        { features: source.features, scores: source.scores, variationIndex: SOURCE_VARIATION },
        { palette: PALETTE, hasLogo: true },
      );
      const planMs = performance.now() - t;
      const after = await run({ ...base(bytes), steering: withLogo(plan.steering, logo) });
      t = performance.now();
      const plan2 = planSteering(
        objective,
        { features: after.features, scores: after.scores, variationIndex: SOURCE_VARIATION },
        { palette: PALETTE, hasLogo: true },
        plan.steering,
      );
      const after2 = await run({ ...base(bytes), steering: withLogo(plan2.steering, logo) });
      refinements.push({ objective, plan, planMs, after, second: { plan: plan2, after: after2 } });
    }
    perProduct.push({ name, source, refinements });
  }

  // The brand colour lever's palette presence (the critique's coverage), source → refinement.
  const paletteShift: Record<'studio' | 'environment', [number, number][]> = {
    studio: perProduct.flatMap((p) =>
      p.refinements
        .filter((r) => r.plan.steering.accentColors)
        .map((r): [number, number] => [coverage(p.source), coverage(r.after)]),
    ),
    environment: [],
  };

  // The environment scenario: first round only.
  const environment = await environmentEngine();
  const envRows: { objective: SteerObjective; gains: number[]; others: Record<string, number[]>; levers: string[] }[] =
    OBJECTIVES.map((objective) => ({ objective, gains: [], others: {}, levers: [] }));
  if (environment) {
    for (const [k, name] of names.entries()) {
      const bytes = fs.readFileSync(path.join(FIXTURES, `${name}.png`));
      const env = await environment({
        prompt: ENVIRONMENTS[k % ENVIRONMENTS.length]!,
        width: SIZE,
        height: SIZE,
        seed: 100 + k,
        palette: PALETTE,
      });
      const req = {
        ...base(bytes),
        prompt: ENVIRONMENTS[k % ENVIRONMENTS.length]!,
        backdrop: env.png,
        backdropHints: { horizon: env.horizon, lightAngle: env.lightAngle },
      };
      const source = await run(req);
      for (const row of envRows) {
        const plan = planSteering(
          row.objective,
          { features: source.features, scores: source.scores, variationIndex: SOURCE_VARIATION },
          { palette: PALETTE, hasLogo: true },
        );
        const after = await run({ ...req, steering: withLogo(plan.steering, logo) });
        row.gains.push(after.scores[row.objective] - source.scores[row.objective]);
        for (const o of OBJECTIVES) {
          row.others[o] = [...(row.others[o] ?? []), after.scores[o] - source.scores[o]];
        }
        row.levers.push(
          ...plan.levers.map((l) => l.replace(/\s*\(.*$/, '').replace(/ #[0-9a-f]{6}(, #[0-9a-f]{6})*/, '')),
        );
        if (plan.steering.accentColors) paletteShift.environment.push([coverage(source), coverage(after)]);
        if (SHEET_ENVIRONMENT.includes(name)) envSheet.push({ name, objective: row.objective, source, after, plan });
      }
    }
  }
  const byEnvironment = Object.fromEntries(
    envRows.map((row) => [
      row.objective,
      {
        riseShare: round(row.gains.filter((g) => g > 0).length / Math.max(1, row.gains.length), 3),
        meanGain: round(mean(row.gains)),
        minGain: round(Math.min(...row.gains)),
        otherScoresMeanChange: Object.fromEntries(
          OBJECTIVES.filter((o) => o !== row.objective).map((o) => [o, round(mean(row.others[o] ?? []))]),
        ),
        levers: row.levers.reduce<Record<string, number>>((acc, l) => {
          acc[l] = (acc[l] ?? 0) + 1;
          return acc;
        }, {}),
      },
    ]),
  );

  const byObjective = Object.fromEntries(
    OBJECTIVES.map((objective) => {
      const rows = perProduct.map((p) => ({ p, r: p.refinements.find((r) => r.objective === objective)! }));
      const gains = rows.map(({ p, r }) => r.after.scores[objective] - p.source.scores[objective]);
      const gains2 = rows.map(({ r }) => r.second!.after.scores[objective] - r.after.scores[objective]);
      const others = Object.fromEntries(
        OBJECTIVES.filter((o) => o !== objective).map((o) => [
          o,
          round(mean(rows.map(({ p, r }) => r.after.scores[o] - p.source.scores[o]))),
        ]),
      );
      const leverCounts: Record<string, number> = {};
      for (const { r } of rows) {
        for (const l of r.plan.levers) {
          const key = l.replace(/\s*\(.*$/, '').replace(/ #[0-9a-f]{6}(, #[0-9a-f]{6})*/, '');
          leverCounts[key] = (leverCounts[key] ?? 0) + 1;
        }
      }
      return [
        objective,
        {
          riseShare: round(gains.filter((g) => g > 0).length / gains.length, 3),
          goal: MIN_RISE_SHARE,
          meanGain: round(mean(gains)),
          medianGain: round(median(gains)),
          minGain: round(Math.min(...gains)),
          meanBefore: round(mean(rows.map(({ p }) => p.source.scores[objective]))),
          meanAfter: round(mean(rows.map(({ r }) => r.after.scores[objective]))),
          otherScoresMeanChange: others,
          levers: leverCounts,
          missing: [...new Set(rows.flatMap(({ r }) => r.plan.missing))],
          secondRound: {
            riseShare: round(gains2.filter((g) => g > 0).length / gains2.length, 3),
            meanGain: round(mean(gains2)),
            meanAfter: round(mean(rows.map(({ r }) => r.second!.after.scores[objective]))),
            pulledLevers: round(rows.filter(({ r }) => r.second!.plan.levers.length > 0).length / rows.length, 3),
            riseShareWhenPulled: round(
              rows.filter(
                ({ r }) =>
                  r.second!.plan.levers.length > 0 && r.second!.after.scores[objective] > r.after.scores[objective],
              ).length / Math.max(1, rows.filter(({ r }) => r.second!.plan.levers.length > 0).length),
              3,
            ),
          },
        },
      ];
    }),
  );

  const all = perProduct.flatMap((p) => p.refinements);
  const sheet = await contactSheet([
    ...perProduct.filter((p) => SHEET_PRODUCTS.includes(p.name)),
    ...SHEET_ENVIRONMENT.filter((n) => envSheet.some((e) => e.name === n)).map((n) => {
      const rows = envSheet.filter((e) => e.name === n);
      return {
        name: `${n} (environment)`,
        source: rows[0]!.source,
        refinements: rows.map((e) => ({ objective: e.objective, plan: e.plan, planMs: 0, after: e.after })),
      };
    }),
  ]);
  const brandColour = Object.fromEntries(
    Object.entries(paletteShift).map(([set, pairs]) => [
      set,
      {
        refinements: pairs.length,
        coverageBefore: round(mean(pairs.map((x) => x[0])), 3),
        coverageAfter: round(mean(pairs.map((x) => x[1])), 3),
        minCoverageAfter: round(Math.min(...pairs.map((x) => x[1])), 3),
        paletteTermBefore: round(mean(pairs.map((x) => paletteTerm(x[0]))), 3),
        paletteTermAfter: round(mean(pairs.map((x) => paletteTerm(x[1]))), 3),
      },
    ]),
  );
  const result = {
    products: perProduct.length,
    source: { size: `${SIZE}x${SIZE}`, variationIndex: SOURCE_VARIATION, palette: PALETTE },
    objectives: byObjective,
    brandColour,
    environment: environment
      ? { prompts: ENVIRONMENTS, objectives: byEnvironment }
      : { skipped: 'no environment engine' },
    timings: {
      sourceGenerateMedianMs: Math.round(median(perProduct.map((p) => p.source.generateMs))),
      refinedGenerateMedianMs: Math.round(median(all.map((r) => r.after.generateMs))),
      refinedGenerateMaxMs: Math.round(Math.max(...all.map((r) => r.after.generateMs))),
      scoreMedianMs: Math.round(median(perProduct.map((p) => p.source.scoreMs))),
      planMedianMs: round(median(all.map((r) => r.planMs)), 3),
    },
    contactSheet: path.relative(process.cwd(), sheet),
    perProduct: perProduct.map((p) => ({
      name: p.name,
      source: p.source.scores,
      refinements: Object.fromEntries(
        p.refinements.map((r) => [
          r.objective,
          {
            after: r.after.scores,
            gain: round(r.after.scores[r.objective] - p.source.scores[r.objective]),
            secondGain: round(r.second!.after.scores[r.objective] - r.after.scores[r.objective]),
            levers: r.plan.levers,
            warnings: r.after.res.warnings.map((w) => w.code),
          },
        ]),
      ),
    })),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  const failures = [
    ...OBJECTIVES.filter((o) => byObjective[o]!.riseShare < MIN_RISE_SHARE).map(
      (o) => `${o}: ${byObjective[o]!.riseShare} of refinements rose, under ${MIN_RISE_SHARE}`,
    ),
    ...(environment
      ? OBJECTIVES.filter((o) => byEnvironment[o]!.riseShare < MIN_RISE_SHARE).map(
          (o) => `${o} (environment): ${byEnvironment[o]!.riseShare} of refinements rose, under ${MIN_RISE_SHARE}`,
        )
      : []),
  ];
  for (const f of failures) process.stderr.write(`bench/refinement: ${f}\n`);
  if (failures.length) process.exitCode = 1;
}

/** Source | refined per objective, labelled with the scores before → after and the levers. */
async function contactSheet(rows: { name: string; source: Scored; refinements: Refinement[] }[]): Promise<string> {
  const cell = 360;
  const labelH = 46;
  const rowH = cell + labelH;
  const layers: OverlayOptions[] = [];
  const label = (lines: string[], width: number) => {
    const text = lines
      .map(
        (l, i) =>
          `<text x="8" y="${18 + i * 18}" font-family="DejaVu Sans, sans-serif" font-size="${i === 0 ? 13 : 11}" fill="${i === 0 ? '#eee' : '#aaa'}">${escapeXml(l)}</text>`,
      )
      .join('');
    return Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${labelH}"><rect width="${width}" height="${labelH}" fill="#111"/>${text}</svg>`,
    );
  };
  const scoreLine = (s: Scored) =>
    `A ${s.scores.attention_potential} · C ${s.scores.conversion} · B ${s.scores.brand_awareness} · palette ${pct(coverage(s))}`;
  for (const [r, row] of rows.entries()) {
    const top = r * rowH;
    const tiles = [row.source, ...row.refinements.map((x) => x.after)];
    for (const [c, t] of tiles.entries()) {
      const tile = await sharp(t.res.png)
        .resize(cell, cell, { fit: 'contain', background: '#1b1b1b' })
        .png()
        .toBuffer();
      layers.push({ input: tile, left: c * cell, top: top + labelH });
    }
    layers.push({
      input: label([`${row.name.replace('solidus_', '')} · source`, scoreLine(row.source)], cell),
      left: 0,
      top,
    });
    for (const [i, x] of row.refinements.entries()) {
      const o = x.objective;
      const before = row.source.scores[o];
      const after = x.after.scores[o];
      const others = OBJECTIVES.filter((k) => k !== o)
        .map((k) => `${SHORT[k]} ${signed(x.after.scores[k] - row.source.scores[k])}`)
        .join(' ');
      // The brand colour lever's name carries the palette coverage it reached.
      const names = x.plan.levers
        .map(shortLever)
        .map((l) => (l === 'brand colours' ? `${l} ${pct(coverage(x.after))}` : l));
      const levers = `${o.replace('_potential', '').replace('_awareness', '')}: ${names.join(', ') || 'no lever'}`;
      layers.push({
        input: label([`${SHORT[o]} ${before} → ${after} (${signed(after - before)}) · ${others}`, levers], cell),
        left: (i + 1) * cell,
        top,
      });
    }
  }
  fs.mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, 'refinements.png');
  await sharp({
    create: { width: cell * (1 + OBJECTIVES.length), height: rowH * rows.length, channels: 3, background: '#1b1b1b' },
  })
    .composite(layers)
    .png()
    .toFile(file);
  return file;
}

/** A lever's name for a sheet label. */
const shortLever = (l: string) =>
  l
    .replace(/^larger product \((×[\d.]+)\)/, 'larger $1')
    .replace(/^smaller product.*/, 'smaller')
    .replace(/^stronger separation.*/, 'separation')
    .replace(/^calmer backdrop.*/, 'calmer backdrop')
    .replace(/^brand colour accent.*/, 'brand colours')
    .replace(/^brand logo.*/, 'logo')
    .replace(/^(\S+) layout.*/, '$1 layout');

type EnvironmentGenerate = (req: {
  prompt: string;
  width: number;
  height: number;
  seed: number;
  palette: string[];
}) => Promise<{ png: Buffer; horizon: number; lightAngle: number }>;

/** The local environment engine when it is there; undefined otherwise. */
async function environmentEngine(): Promise<EnvironmentGenerate | undefined> {
  try {
    const mod = (await import('../src/engines/environment/local/local-environment-engine.ts')) as {
      createLocalEnvironmentEngine?: () => { generate: EnvironmentGenerate };
    };
    const engine = mod.createLocalEnvironmentEngine?.();
    return engine ? (req) => engine.generate(req) : undefined;
  } catch {
    return undefined;
  }
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

await main();
