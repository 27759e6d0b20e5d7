import { type BrandDna, type Preview, SOURCE_TYPES, type SourceType } from './brand-dna.schemas.ts';

/** The summary's preview, derived from the DNA payload and the version's sources. Pure. */
export function sourceCounts(types: readonly string[]): Preview['sourceCounts'] {
  const counts = Object.fromEntries(SOURCE_TYPES.map((t) => [t, 0])) as Record<SourceType, number>;
  for (const t of types) if (t in counts) counts[t as SourceType]++;
  return counts;
}

export function buildPreview(dna: BrandDna | null, types: readonly string[]): Preview {
  const counts = sourceCounts(types);
  if (!dna) return { colorHexes: [], typographyShort: '', toneShort: '', topValues: [], sourceCounts: counts };
  const { heading, body } = dna.visual.typography;
  const families = [heading?.family, body?.family].filter((f): f is string => !!f);
  const typographyShort =
    families.length === 2 && families[0]!.toLowerCase() !== families[1]!.toLowerCase()
      ? `${families[0]} / ${families[1]}`
      : (families[0] ?? '');
  const strong = dna.voice.tone.filter((t) => t.weight >= 0.15).slice(0, 3);
  return {
    colorHexes: dna.visual.palette.slice(0, 6).map((p) => p.hex.toLowerCase()),
    typographyShort,
    toneShort: (strong.length ? strong : dna.voice.tone.slice(0, 1)).map((t) => t.tone).join(', '),
    topValues: dna.identity.values.slice(0, 3).map((v) => v.value),
    sourceCounts: counts,
  };
}
