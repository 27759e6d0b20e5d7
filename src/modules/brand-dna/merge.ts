import { emptyAnalysis, type TextAnalysis, type Tone, TONES } from '../../engines/text/text-engine.ts';
import { deltaE2000, hexToLab, isNeutral, type Lab } from './color.ts';
import type { ColorRoleHint, FontCandidate } from './css-analysis.ts';
import type { BrandDna, FontEntry, PaletteEntry, PaletteRole, SourceType } from './brand-dna.schemas.ts';
import { webUrlProblem } from './web-url.ts';

/**
 * Merging what each source found into one DNA payload. Every source's evidence is normalised (each
 * source brings one unit per aspect), scaled by the weight of its type for that aspect
 * (SOURCE_WEIGHTS), grouped across sources (colours closer than ΔE2000 8, fonts by family name,
 * texts by normalised value), and each group's score is raised by agreement: ×(1 + 0.5 per extra
 * source that supports it). Explicit statements (guideline colour specs, font files, named
 * typefaces) take precedence over inferred ones. The Brand resource's own fields are a text source
 * of their own (provenance `brand`, see BrandFacts). Pure.
 */
export interface FoundColor {
  hex: string;
  weight: number;
  roleHint?: ColorRoleHint;
  /** Stated in a guideline (HEX/RGB/CMYK/Pantone), not inferred. */
  explicit?: boolean;
  /** Drawn in the logo (a logo asset's pixels, a page's inline SVG logo). */
  logo?: boolean;
  name?: string;
  pantone?: string;
}

/** A font as CSS declares it (FontCandidate), or as a font file or a guideline names it. */
export interface FoundFont extends FontCandidate {
  /** A font file, or a typeface a guideline names. */
  explicit?: boolean;
}

export interface FoundLogo {
  assetId?: string;
  url?: string;
  score: number;
}

/** Everything one source yielded (stored per source, merged at the end of a run). */
export interface SourceFindings {
  sourceId: string;
  type: SourceType;
  /** A logo asset (its colours and the reference count more). */
  isLogo?: boolean;
  colors: FoundColor[];
  fonts: FoundFont[];
  logos: FoundLogo[];
  text?: TextAnalysis;
  imagery?: { style: string[]; subjects: string[] };
  pageCount?: number;
}

/** Weight of each source type per aspect (docs/decisions/brand-dna.md, Brand DNA). */
export const SOURCE_WEIGHTS = {
  palette: { url: 1, pdf: 1, document: 1, image: 0.5, video: 0.4, font: 0 } as Record<SourceType, number>,
  /** Multiplier for explicit colour specs and for logo assets' pixels. */
  explicitColor: 3,
  logoColor: 2.4,
  typography: { font: 3, pdf: 1, document: 1, url: 1, image: 0, video: 0 } as Record<SourceType, number>,
  /** Multiplier for fonts a guideline names explicitly. */
  explicitFont: 2.5,
  text: { pdf: 1.5, document: 1.5, url: 1, image: 0, video: 0, font: 0 } as Record<SourceType, number>,
  /**
   * The Brand resource as a text source: what the customer states (name, industry, mission,
   * values, tone, voice) twice a guideline's weight, so it wins over any one source's reading and
   * gives way only when several sources agree on something else; what the text analyzer reads in
   * the brand's description like a page's copy.
   */
  brand: { stated: 3, described: 1 },
};

/** Provenance of what comes from the Brand resource. */
const BRAND_SOURCE = 'brand';

/** ΔE2000 under which two colours are the same brand colour. */
export const SAME_COLOR_DE = 8;
const agreement = (n: number) => 1 + 0.5 * (n - 1);
const round3 = (x: number) => Math.round(x * 1000) / 1000;
/** The first `max` code points (the schema's lengths count code points; a pair is never split). */
const cut = (s: string, max: number) => (s.length <= max ? s : [...s].slice(0, max).join(''));

export interface MergeEvidence {
  /** Sources supporting each of the first three palette entries. */
  paletteSupport: number[];
  /** Sources supporting the heading and body families chosen. */
  fontSupport: number[];
  /** Sources that gave colours, and fonts. */
  paletteSources: number;
  fontSources: number;
  /** Per source with text: its tone distribution. */
  toneVectors: Record<Tone, number>[];
  /** Sources that yielded anything at all. */
  contributing: number;
}

export interface MergeResult {
  dna: BrandDna;
  evidence: MergeEvidence;
}

/** The Brand resource's own fields (as stored: empty strings and lists state nothing). */
export interface BrandFacts {
  name?: string;
  industry?: string;
  mission?: string;
  values?: readonly string[];
  tone?: readonly string[];
  voice?: readonly string[];
  /** The brand's logo asset (logoAssetId), the customer's own statement of its logo. */
  logoAssetId?: string | null;
  /** The text analyzer's reading of the brand's description (the description itself is not used). */
  described?: TextAnalysis | undefined;
}

export interface MergeContext {
  brand?: BrandFacts;
}

export function mergeFindings(findings: readonly SourceFindings[], ctx: MergeContext = {}): MergeResult {
  const palette = mergePalette(findings);
  const typography = mergeTypography(findings);
  const text = mergeText(findings, ctx);
  const logos = mergeLogos(findings, ctx.brand?.logoAssetId ?? undefined);
  const imagery = mergeImagery(findings);
  const contributing = findings.filter(
    (f) => f.colors.length || f.fonts.length || f.logos.length || f.text || f.imagery,
  ).length;
  return {
    dna: {
      schema_version: 1,
      identity: text.identity,
      voice: text.voice,
      visual: { palette: palette.entries, typography: typography.typography, logos, imagery },
    },
    evidence: {
      paletteSupport: palette.support,
      fontSupport: typography.support,
      paletteSources: findings.filter((f) => SOURCE_WEIGHTS.palette[f.type] > 0 && f.colors.length > 0).length,
      fontSources: findings.filter((f) => SOURCE_WEIGHTS.typography[f.type] > 0 && f.fonts.length > 0).length,
      toneVectors: text.toneVectors,
      contributing,
    },
  };
}

// --------------------------------------------------------------------------------------------
// Palette

interface ColorCluster {
  hex: string;
  lab: Lab;
  score: number;
  sources: Set<string>;
  explicit: boolean;
  /** Document order of the first explicit spec. */
  index: number;
  hints: Map<ColorRoleHint, number>;
  /** Evidence from logos. */
  logoScore: number;
  name?: string;
  pantone?: string;
}

function mergePalette(findings: readonly SourceFindings[]): { entries: PaletteEntry[]; support: number[] } {
  const evidence: { sourceId: string; c: FoundColor; w: number; order: number; logo: boolean }[] = [];
  for (const f of findings) {
    const base = SOURCE_WEIGHTS.palette[f.type];
    const total = f.colors.reduce((s, c) => s + c.weight, 0);
    if (!base || total <= 0) continue;
    f.colors.forEach((c, order) => {
      const mult = c.explicit ? SOURCE_WEIGHTS.explicitColor : f.isLogo ? SOURCE_WEIGHTS.logoColor : 1;
      evidence.push({
        sourceId: f.sourceId,
        c,
        w: (c.weight / total) * base * mult,
        order,
        logo: !!(c.logo || f.isLogo),
      });
    });
  }
  evidence.sort((a, b) => Number(!!b.c.explicit) - Number(!!a.c.explicit) || b.w - a.w);
  const clusters: ColorCluster[] = [];
  for (const e of evidence) {
    const lab = hexToLab(e.c.hex);
    let cl = clusters.find((c) => deltaE2000(c.lab, lab) < SAME_COLOR_DE);
    if (!cl) {
      cl = {
        hex: e.c.hex.toLowerCase(),
        lab,
        score: 0,
        sources: new Set(),
        explicit: !!e.c.explicit,
        index: e.c.explicit ? e.order : Number.POSITIVE_INFINITY,
        hints: new Map(),
        logoScore: 0,
      };
      clusters.push(cl);
    }
    cl.score += e.w;
    if (e.logo) cl.logoScore += e.w;
    cl.sources.add(e.sourceId);
    if (e.c.explicit && !cl.explicit) {
      // A stated colour becomes the group's value: the exact hex the guideline gives.
      cl.explicit = true;
      cl.hex = e.c.hex.toLowerCase();
      cl.lab = lab;
      cl.index = e.order;
    }
    if (e.c.roleHint) cl.hints.set(e.c.roleHint, (cl.hints.get(e.c.roleHint) ?? 0) + e.w * (e.c.explicit ? 10 : 1));
    if (e.c.name && !cl.name) cl.name = e.c.name;
    if (e.c.pantone && !cl.pantone) cl.pantone = e.c.pantone;
  }
  for (const c of clusters) c.score *= agreement(c.sources.size);
  const hintOf = (c: ColorCluster): ColorRoleHint | undefined =>
    [...c.hints.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const explicitHint = (c: ColorCluster) => (c.explicit ? hintOf(c) : undefined);

  const chromaticTotal = clusters.filter((c) => !isNeutral(c.lab)).reduce((s, c) => s + c.score, 0);
  const rank = (a: ColorCluster, b: ColorCluster) =>
    Number(b.explicit) - Number(a.explicit) || (a.explicit ? a.index - b.index : 0) || b.score - a.score;
  const chromatic = clusters
    .filter((c) => !isNeutral(c.lab) || ['primary', 'secondary', 'accent'].includes(explicitHint(c) ?? ''))
    .filter((c) => c.explicit || c.score >= 0.03 * chromaticTotal)
    .sort(rank);
  // Hues too weak to count are left out, not relabelled as neutrals.
  const neutrals = clusters.filter((c) => !chromatic.includes(c) && isNeutral(c.lab)).sort(rank);

  const chosen: { c: ColorCluster; role: PaletteRole }[] = [];
  const take = (c: ColorCluster | undefined, role: PaletteRole) => {
    if (c && !chosen.some((x) => x.c === c)) chosen.push({ c, role });
  };
  const byHint = (list: ColorCluster[], hint: ColorRoleHint) => list.find((c) => explicitHint(c) === hint);
  const free = (list: ColorCluster[]) => list.filter((c) => !chosen.some((x) => x.c === c));

  // The primary colour: one a guideline states, else the logo's main colour (a black wordmark
  // makes a black brand), else the strongest hue.
  const logoMain = clusters
    .filter((c) => c.logoScore > 0 && c.lab[0] < 90)
    .sort((a, b) => b.logoScore - a.logoScore)[0];
  take(byHint([...clusters].sort(rank), 'primary') ?? logoMain ?? free(chromatic)[0], 'primary');
  take(
    byHint(chromatic, 'secondary') ?? free(chromatic).find((c) => explicitHint(c) !== 'accent') ?? free(chromatic)[0],
    'secondary',
  );
  for (const c of free(chromatic).slice(0, 3)) take(c, 'accent');

  // Neutrals below 1% of the evidence are noise (a grey scale defined but barely used).
  const total0 = clusters.reduce((s, c) => s + c.score, 0);
  const usable = neutrals.filter((c) => c.explicit || c.score >= 0.01 * total0);
  const background = usable.find((c) => hintOf(c) === 'background') ?? usable.find((c) => c.lab[0] >= 85);
  const text =
    usable.find((c) => hintOf(c) === 'text' && c !== background) ??
    usable.find((c) => c.lab[0] <= 35 && c !== background);
  if (!chosen.some((x) => x.role === 'primary')) {
    // No brand hue anywhere: the strongest neutral that is not the page background is the brand colour.
    take(
      usable.find((c) => c !== background),
      'primary',
    );
  }
  for (const c of free(usable)
    .filter((c) => c !== background && c !== text)
    .slice(0, 2))
    take(c, 'neutral');
  take(background, 'background');
  take(text, 'text');

  const total = chosen.reduce((s, x) => s + x.c.score, 0);
  const entries: PaletteEntry[] = chosen.map(({ c, role }) => ({
    hex: c.hex,
    role,
    share: total > 0 ? round3(c.score / total) : 0,
    ...(c.name ? { name: cut(c.name, 60) } : {}),
    ...(c.pantone ? { pantone: cut(c.pantone, 40) } : {}),
    sources: [...c.sources],
  }));
  return { entries, support: chosen.slice(0, 3).map((x) => x.c.sources.size) };
}

// --------------------------------------------------------------------------------------------
// Typography

interface FontGroup {
  family: string;
  heading: number;
  body: number;
  any: number;
  weights: Set<number>;
  fallbacks: string[];
  sources: Set<string>;
  explicit: boolean;
}

const familyKey = (f: string) => f.toLowerCase().replace(/\s+/g, ' ').trim();

function mergeTypography(findings: readonly SourceFindings[]): {
  typography: BrandDna['visual']['typography'];
  support: number[];
} {
  const groups = new Map<string, FontGroup>();
  for (const f of findings) {
    const base = SOURCE_WEIGHTS.typography[f.type];
    const total = f.fonts.reduce((s, x) => s + x.weight, 0);
    if (!base || total <= 0) continue;
    for (const font of f.fonts) {
      const key = familyKey(font.family);
      let g = groups.get(key);
      if (!g) {
        g = {
          family: font.family,
          heading: 0,
          body: 0,
          any: 0,
          weights: new Set(),
          fallbacks: [],
          sources: new Set(),
          explicit: false,
        };
        groups.set(key, g);
      }
      const w = (font.weight / total) * base * (font.explicit && f.type !== 'font' ? SOURCE_WEIGHTS.explicitFont : 1);
      g[font.role] += w;
      for (const x of font.weights) g.weights.add(x);
      if (!g.fallbacks.length && font.fallbacks.length) g.fallbacks = font.fallbacks.slice(0, 8);
      g.sources.add(f.sourceId);
      g.explicit ||= !!font.explicit;
    }
  }
  const all = [...groups.values()];
  for (const g of all) {
    const a = agreement(g.sources.size);
    g.heading *= a;
    g.body *= a;
    g.any *= a;
  }
  const score = (g: FontGroup, role: 'heading' | 'body') => g[role] + 0.5 * g.any + (g.explicit ? 0.001 : 0);
  const best = (role: 'heading' | 'body', exclude?: FontGroup) =>
    all
      .filter((g) => g !== exclude && (g[role] > 0 || g.any > 0))
      .sort((a, b) => score(b, role) - score(a, role) || Number(b.weights.has(400)) - Number(a.weights.has(400)))[0];

  let body = best('body');
  let heading = best('heading');
  // Families known only as "used somewhere" (font files, bare names): with two of them, the one
  // with a regular weight is the body face and the other the heading face.
  if (body && heading === body && body.body === 0 && body.heading === 0) {
    const other = best('heading', body);
    if (other && other.heading === 0 && other.body === 0) {
      if (!body.weights.has(400) && other.weights.has(400)) [body, heading] = [other, body];
      else heading = other;
    }
  }
  if (heading && body && heading !== body && heading.heading === 0 && body.heading > 0) heading = body;
  // Headings inherit the body face when nothing sets one of their own.
  heading ??= body;
  const entry = (g: FontGroup | undefined): FontEntry | null =>
    g
      ? {
          family: cut(g.family, 80),
          weights: [...g.weights].sort((a, b) => a - b).slice(0, 9),
          fallbacks: g.fallbacks.filter((f) => familyKey(f) !== familyKey(g.family)).map((f) => cut(f, 80)),
          sources: [...g.sources],
        }
      : null;
  return {
    typography: { heading: entry(heading), body: entry(body) },
    support: [heading, body].filter((g): g is FontGroup => !!g).map((g) => g.sources.size),
  };
}

// --------------------------------------------------------------------------------------------
// Identity and voice

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

interface Vote<T> {
  value: T;
  score: number;
  sources: Set<string>;
}

function vote<T>(items: { key: string; value: T; score: number; sourceId: string }[]): Vote<T> | undefined {
  const groups = new Map<string, Vote<T>>();
  for (const it of items) {
    const g = groups.get(it.key);
    if (g) {
      g.score += it.score;
      g.sources.add(it.sourceId);
      if (it.score > 0 && String(it.value).length > String(g.value).length && it.key === norm(String(g.value)))
        g.value = it.value;
    } else groups.set(it.key, { value: it.value, score: it.score, sources: new Set([it.sourceId]) });
  }
  for (const g of groups.values()) g.score *= agreement(g.sources.size);
  return [...groups.values()].sort((a, b) => b.score - a.score)[0];
}

type RankedLists = { items: string[]; weight: number; sourceId: string }[];

/** Items grouped by normalised value, scored by weight and position, raised by agreement. */
function groupItems(lists: RankedLists, maxLen: number) {
  const groups = new Map<string, { value: string; score: number; sources: Set<string> }>();
  for (const l of lists) {
    l.items.forEach((item, i) => {
      const value = cut(item.trim(), maxLen);
      const key = norm(value);
      if (!key) return;
      const s = l.weight * (1 - i / (l.items.length + 1));
      const g = groups.get(key);
      if (g) {
        g.score += s;
        g.sources.add(l.sourceId);
      } else groups.set(key, { value, score: s, sources: new Set([l.sourceId]) });
    });
  }
  for (const g of groups.values()) g.score *= agreement(g.sources.size);
  return groups;
}

function rankedUnion(lists: RankedLists, max: number, maxLen: number) {
  return [...groupItems(lists, maxLen).values()]
    .sort((a, b) => b.score - a.score)
    .slice(0, max)
    .map((g) => ({ value: g.value, sources: [...g.sources] }));
}

/**
 * Values: those a source states (the brand's own, a guideline's values section, `Our values: A,
 * B, C` on a page) come first, ranked among themselves by the stated evidence alone (so the order
 * a guideline gives holds); values inferred from prose follow. A source that infers a stated value
 * still counts as its source.
 */
function rankedValues(
  lists: { stated: string[]; inferred: string[]; weight: number; sourceId: string }[],
  max: number,
  maxLen: number,
) {
  const stated = groupItems(
    lists.map((l) => ({ items: l.stated, weight: l.weight, sourceId: l.sourceId })),
    maxLen,
  );
  const all = groupItems(
    lists.map((l) => ({ items: [...l.stated, ...l.inferred], weight: l.weight, sourceId: l.sourceId })),
    maxLen,
  );
  const first = [...stated.entries()].sort((a, b) => b[1].score - a[1].score);
  const then = [...all.entries()].filter(([k]) => !stated.has(k)).sort((a, b) => b[1].score - a[1].score);
  return [...first, ...then].slice(0, max).map(([k, g]) => ({ value: g.value, sources: [...all.get(k)!.sources] }));
}

const formalityLevel = (score: number): 'formal' | 'neutral' | 'casual' =>
  score >= 0.62 ? 'formal' : score <= 0.38 ? 'casual' : 'neutral';

interface TextInput {
  id: string;
  w: number;
  t: TextAnalysis;
  /** Speaks to formality (a reading that heard a tone in the text). */
  formal: boolean;
  /** Every value it gives is stated (the Brand resource's own `values`). */
  statesValues?: boolean;
}

/**
 * The Brand resource as text inputs: its stated fields as certain (score 1) at the `stated`
 * weight; the reading of its description, at the `described` weight, for what the brand does not
 * state (never its name, industry, tagline or words to use/avoid: a description is not a slogan,
 * and its few words are no vocabulary). Tones are weighed in the order given, falling linearly.
 */
function brandInputs(b: BrandFacts | undefined): TextInput[] {
  if (!b) return [];
  const text = (s: string | undefined) => (s && norm(s) ? { value: s.trim(), score: 1 } : undefined);
  const list = (xs: readonly string[] | undefined) => (xs ?? []).filter((x) => norm(x) !== '');
  const tones = [...new Set(b.tone ?? [])].filter((t): t is Tone => (TONES as readonly string[]).includes(t));
  const n = tones.length;
  const name = text(b.name);
  const industry = text(b.industry);
  const mission = text(b.mission);
  const stated: TextAnalysis = {
    ...emptyAnalysis(),
    ...(name ? { brandName: name } : {}),
    ...(industry ? { industry } : {}),
    ...(mission ? { mission } : {}),
    values: list(b.values),
    tone: tones.map((tone, i) => ({ tone, weight: (n - i) / ((n * (n + 1)) / 2) })),
    descriptors: list(b.voice),
  };
  const inputs: TextInput[] = [
    { id: BRAND_SOURCE, w: SOURCE_WEIGHTS.brand.stated, t: stated, formal: false, statesValues: true },
  ];
  const d = b.described;
  if (d) {
    inputs.push({
      id: BRAND_SOURCE,
      w: SOURCE_WEIGHTS.brand.described,
      t: {
        ...emptyAnalysis(),
        ...(d.mission && !mission ? { mission: d.mission } : {}),
        ...(d.audience ? { audience: d.audience } : {}),
        values: stated.values.length ? [] : d.values,
        ...(d.statedValues?.length && !stated.values.length ? { statedValues: d.statedValues } : {}),
        tone: stated.tone.length ? [] : d.tone,
        descriptors: stated.descriptors.length ? [] : d.descriptors,
        formality: d.formality,
      },
      // Its formality goes with its tones (the reading's formality leans on the tones it heard).
      formal: d.tone.length > 0 && !stated.tone.length,
    });
  }
  return inputs;
}

function mergeText(findings: readonly SourceFindings[], ctx: MergeContext) {
  // The brand first: a group keeps its first spelling, so a value it states reads as the customer wrote it.
  const withText: TextInput[] = [
    ...brandInputs(ctx.brand),
    ...findings
      .filter((f) => f.text && SOURCE_WEIGHTS.text[f.type] > 0)
      .map((f) => ({ id: f.sourceId, w: SOURCE_WEIGHTS.text[f.type], t: f.text!, formal: f.text!.tone.length > 0 })),
  ];

  const scoredVote = (pick: (t: TextAnalysis) => { value: string; score: number } | undefined) =>
    vote(
      withText.flatMap(({ id, w, t }) => {
        const s = pick(t);
        return s ? [{ key: norm(s.value), value: s.value, score: s.score * w, sourceId: id }] : [];
      }),
    );
  const textValue = (v: Vote<string> | undefined, max: number) =>
    v ? { value: cut(v.value, max), sources: [...v.sources] } : null;

  const audienceVote = vote(
    withText.flatMap(({ id, w, t }) =>
      t.audience
        ? [
            {
              key: norm(t.audience.value.description),
              value: t.audience.value,
              score: t.audience.score * w,
              sourceId: id,
            },
          ]
        : [],
    ),
  );

  // Tone: the weighted mean of the sources' distributions.
  const toneVectors: Record<Tone, number>[] = [];
  const toneSum = Object.fromEntries(TONES.map((t) => [t, 0])) as Record<Tone, number>;
  const toneSources = new Map<Tone, Set<string>>();
  let toneWeight = 0;
  for (const { id, w, t } of withText) {
    if (!t.tone.length) continue;
    const v = Object.fromEntries(TONES.map((x) => [x, 0])) as Record<Tone, number>;
    for (const x of t.tone) {
      v[x.tone] = x.weight;
      toneSum[x.tone] += x.weight * w;
      if (x.weight >= 0.05) toneSources.set(x.tone, (toneSources.get(x.tone) ?? new Set()).add(id));
    }
    toneVectors.push(v);
    toneWeight += w;
  }
  let tone: BrandDna['voice']['tone'] = [];
  if (toneWeight > 0) {
    const kept = TONES.map((t) => ({ tone: t, w: toneSum[t] / toneWeight })).filter((x) => x.w >= 0.05);
    const sum = kept.reduce((s, x) => s + x.w, 0);
    tone = kept
      .map((x) => ({ tone: x.tone, weight: round3(x.w / sum), sources: [...(toneSources.get(x.tone) ?? [])] }))
      .sort((a, b) => b.weight - a.weight);
    const drift = round3(1 - tone.reduce((s, x) => s + x.weight, 0));
    if (tone[0]) tone[0].weight = round3(Math.min(1, Math.max(0, tone[0].weight + drift)));
  }

  const formalitySources = withText.filter((x) => x.formal);
  const fw = formalitySources.reduce((s, x) => s + x.w, 0);
  const formalityScore =
    fw > 0 ? round3(formalitySources.reduce((s, x) => s + x.t.formality * x.w, 0) / fw) : undefined;

  const union = (pick: (t: TextAnalysis) => string[], max: number, maxLen: number) =>
    rankedUnion(
      withText.map(({ id, w, t }) => ({ items: pick(t), weight: w, sourceId: id })),
      max,
      maxLen,
    );

  const audience = audienceVote
    ? {
        description: cut(audienceVote.value.description, 300),
        segments: audienceVote.value.segments.slice(0, 8).map((s) => cut(s, 50)),
        sources: [...audienceVote.sources],
      }
    : null;

  return {
    identity: {
      brand_name: textValue(
        scoredVote((t) => t.brandName),
        100,
      ),
      tagline: textValue(
        scoredVote((t) => t.tagline),
        200,
      ),
      mission: textValue(
        scoredVote((t) => t.mission),
        1000,
      ),
      values: rankedValues(
        withText.map(({ id, w, t, statesValues }) => {
          const said = statesValues ? t.values : (t.statedValues ?? []);
          const keys = new Set(said.map(norm));
          return { stated: said, inferred: t.values.filter((v) => !keys.has(norm(v))), weight: w, sourceId: id };
        }),
        10,
        50,
      ),
      industry: textValue(
        scoredVote((t) => t.industry),
        50,
      ),
      audience,
    } satisfies BrandDna['identity'],
    voice: {
      tone,
      descriptors: union((t) => t.descriptors, 10, 40),
      formality:
        formalityScore === undefined
          ? null
          : {
              level: formalityLevel(formalityScore),
              score: formalityScore,
              sources: formalitySources.map((x) => x.id),
            },
      words_to_use: union((t) => t.wordsToUse, 20, 40),
      words_to_avoid: union((t) => t.wordsToAvoid, 20, 40),
    } satisfies BrandDna['voice'],
    toneVectors,
  };
}

// --------------------------------------------------------------------------------------------
// Logos and imagery

function mergeLogos(findings: readonly SourceFindings[], brandLogo?: string): BrandDna['visual']['logos'] {
  const byKey = new Map<string, { assetId?: string; url?: string; score: number; sources: Set<string> }>();
  // The brand's own logo asset comes first (provenance `brand`); sources naming it too add theirs.
  if (brandLogo)
    byKey.set(`a:${brandLogo}`, { assetId: brandLogo, score: Number.POSITIVE_INFINITY, sources: new Set(['brand']) });
  for (const f of findings) {
    for (const l of f.logos) {
      // A page may name a logo by a URL the payload cannot hold (too long, with credentials).
      if (l.url !== undefined && webUrlProblem(l.url)) continue;
      const key = l.assetId ? `a:${l.assetId}` : `u:${l.url}`;
      const g = byKey.get(key);
      if (g) {
        g.score += l.score;
        g.sources.add(f.sourceId);
      } else byKey.set(key, { ...l, sources: new Set([f.sourceId]) });
    }
  }
  return [...byKey.values()]
    .sort((a, b) => Number(!!b.assetId) - Number(!!a.assetId) || b.score - a.score)
    .slice(0, 5)
    .map((l) => ({
      ...(l.assetId ? { asset_id: l.assetId } : {}),
      ...(l.url ? { url: l.url } : {}),
      sources: [...l.sources],
    }));
}

/** Style words that contradict each other: of each group only the most frequent is kept. */
const STYLE_GROUPS = [
  ['bright', 'dark'],
  ['vibrant', 'muted', 'monochrome'],
  ['warm', 'cool'],
  ['high-contrast', 'soft'],
];

function mergeImagery(findings: readonly SourceFindings[]): BrandDna['visual']['imagery'] {
  const count = (pick: (i: { style: string[]; subjects: string[] }) => string[], exclusive: string[][] = []) => {
    const m = new Map<string, number>();
    for (const f of findings) if (f.imagery) for (const s of new Set(pick(f.imagery))) m.set(s, (m.get(s) ?? 0) + 1);
    const ranked = [...m.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    return ranked
      .filter(([s]) => {
        const group = exclusive.find((g) => g.includes(s));
        return !group || ranked.find(([x]) => group.includes(x))?.[0] === s;
      })
      .slice(0, 12)
      .map(([s]) => cut(s, 40));
  };
  return {
    style: count((i) => i.style, STYLE_GROUPS),
    subjects: count((i) => i.subjects),
    sources: findings
      .filter((f) => f.imagery && (f.imagery.style.length || f.imagery.subjects.length))
      .map((f) => f.sourceId),
  };
}
