/**
 * The `critique` object of a completed scene variation (organizations whose plan has the `critique`
 * feature), as the API publishes it. Built by `buildCritique` (critique.ts); README.md documents the
 * diagnostics, their thresholds and the value sets below.
 */
import { type Static, Type } from 'typebox';
import { SCORE_NAMES } from './scores.ts';

/** A closed set of strings, published as a JSON-schema `enum` (as src/http/schemas.ts does). */
const StringEnum = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

/** The campaign objective each score serves. */
export const CAMPAIGN_OBJECTIVES = ['attention', 'conversion', 'awareness'] as const;
export type CampaignObjective = (typeof CAMPAIGN_OBJECTIVES)[number];
/** `general_assessment` bands of a 0..100 score (see `ASSESSMENT_BANDS` in critique.ts). */
export const GENERAL_ASSESSMENTS = ['excellent', 'good', 'fair', 'poor'] as const;
export type GeneralAssessment = (typeof GENERAL_ASSESSMENTS)[number];
/** A diagnostic's `outcome`: passes, falls short, or falls far short. */
export const DIAGNOSTIC_OUTCOMES = ['pass', 'improve', 'critical'] as const;
export type DiagnosticOutcome = (typeof DIAGNOSTIC_OUTCOMES)[number];
/** The diagnostics the pixel model judges (in this order; some only when they can be judged). */
export const DIAGNOSTIC_NAMES = [
  'product_prominence',
  'attention_on_product',
  'competing_focal_points',
  'contrast_with_background',
  'background_clutter',
  'sharpness',
  'exposure',
  'composition_balance',
  'product_cut_off',
  'brand_colour_presence',
  'brand_mark_visibility',
  'colourfulness',
] as const;
export type DiagnosticName = (typeof DIAGNOSTIC_NAMES)[number];

const DiagnosticNameString = Type.String({
  description: `A diagnostic: ${DIAGNOSTIC_NAMES.join(', ')} (more may be added)`,
});
const Score100 = (description: string) => Type.Number({ minimum: 0, maximum: 100, description });
const DateTime = Type.String({ format: 'date-time' });

export const CritiqueDiagnostic = Type.Object(
  {
    diagnostic: DiagnosticNameString,
    assessment: Type.Boolean({ description: 'True when the diagnostic passes' }),
    score: Score100('This diagnostic on 0..100: ≥ 70 passes, < 40 is critical'),
    max_potential: Score100('The score this diagnostic reaches at its recommended target value'),
    outcome: StringEnum(DIAGNOSTIC_OUTCOMES),
    description: Type.String({ description: 'What was measured, with the numbers and the passing range' }),
    impact: Type.String({
      description: 'Which scores this diagnostic moves (points now / of its terms) and by how much',
    }),
    creation_time: DateTime,
  },
  { title: 'CritiqueDiagnostic' },
);
export type CritiqueDiagnostic = Static<typeof CritiqueDiagnostic>;

export const PracticalRecommendation = Type.Object(
  {
    title: Type.String(),
    text: Type.String({ description: 'The change, with the measured numbers and the target' }),
    display_title: Type.String(),
    display_text: Type.String(),
    addresses_diagnostics: Type.Array(DiagnosticNameString),
    estimated_gain: Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'Points this change adds to the score (the score recomputed with the feature at its target)',
    }),
    prompt_patch: Type.String({ description: 'A phrase to append to the image prompt to make this change' }),
  },
  { title: 'PracticalRecommendation' },
);
export type PracticalRecommendation = Static<typeof PracticalRecommendation>;

export const CritiqueRecommendation = Type.Object(
  {
    campaign_id: Type.String({ description: 'The scene forge the variation belongs to' }),
    campaign_objective: StringEnum(CAMPAIGN_OBJECTIVES, 'The objective this score serves'),
    score: Score100('The score (0..100; about 50 is an ordinary product photo)'),
    score_name: StringEnum(SCORE_NAMES),
    general_assessment: StringEnum(GENERAL_ASSESSMENTS),
    general_recommendation: Type.String(),
    recommendation_details: Type.Object(
      {
        general_recommendation: Type.String(),
        display_summary: Type.String(),
        practical_recommendations: Type.Array(PracticalRecommendation, {
          description: 'From the failing diagnostics that move this score, most gain first',
        }),
      },
      { title: 'CritiqueRecommendationDetails' },
    ),
    diagnostics: Type.Array(CritiqueDiagnostic),
    creation_time: DateTime,
  },
  { title: 'CritiqueRecommendation' },
);
export type CritiqueRecommendation = Static<typeof CritiqueRecommendation>;

export const Critique = Type.Object(
  {
    recommendations: Type.Array(CritiqueRecommendation, {
      description: 'One per score, the campaign objective first',
    }),
    reactions: Type.Object(
      {
        attention_potential: Score100('The attention_potential score'),
        general_assessment: StringEnum(GENERAL_ASSESSMENTS),
      },
      { title: 'CritiqueReactions' },
    ),
    image_intelligence: Type.Object(
      {
        average_branding_area: Type.Number({
          minimum: 0,
          maximum: 100,
          description: 'Percent of the frame covered by logos (or the text/mark proxy)',
        }),
        average_focal_points: Type.Number({ minimum: 0 }),
        emotional_tone_presence: Type.Record(Type.String(), Type.String({ pattern: '^[0-9]{1,3}%$' }), {
          description: 'Tone label → share, e.g. {"calm": "42%"}; the shares sum to 100%',
        }),
        features: Type.Object(
          {
            number_of_focal_points: Type.Integer({ minimum: 0 }),
            brand: Type.Object(
              {
                branding_area: Type.Number({ minimum: 0, maximum: 100, description: 'Percent of the frame' }),
                number_branding_elements: Type.Integer({ minimum: 0 }),
              },
              { title: 'CritiqueBrandFeatures' },
            ),
            description: Type.Object(
              { text: Type.String(), mood: Type.String(), tone: Type.String() },
              { title: 'CritiqueImageDescription' },
            ),
          },
          { title: 'CritiqueImageFeatures' },
        ),
      },
      { title: 'CritiqueImageIntelligence' },
    ),
    model_versions: Type.Object(
      {
        prediction: Type.String(),
        recommendation: Type.String(),
        prediction_params: Type.Object(
          {
            age_range: Type.String(),
            country: Type.String(),
            device_type: Type.String(),
            gender_distribution: Type.String(),
            platform_format: Type.String(),
            view_month: Type.String(),
            view_time: Type.String(),
          },
          { title: 'CritiquePredictionParams' },
        ),
      },
      { title: 'CritiqueModelVersions' },
    ),
  },
  { title: 'Critique', description: 'Diagnostics and recommendations from the pixel model' },
);
export type Critique = Static<typeof Critique>;
