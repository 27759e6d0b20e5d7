/**
 * What a generated file says about itself, as plain facts, and the two ways it is written: the C2PA
 * manifest definition (the JSON the c2pa-rs Builder takes) and an XMP packet with the IPTC digital
 * source type, for readers that do not speak C2PA yet. Pure functions; no signing here.
 */

/** The IPTC digital source type vocabulary (http://cv.iptc.org/newscodes/digitalsourcetype/). */
export const IPTC_SOURCE_TYPES = 'http://cv.iptc.org/newscodes/digitalsourcetype/';

/**
 * The terms Atelier uses (which engine claims which: docs/decisions/generation.md, "Content Credentials"):
 * `trainedAlgorithmicMedia` for a provider's model output; `compositeWithTrainedAlgorithmicMedia`
 * for a model's image with the real product photo composited back over it; `compositeSynthetic`
 * for a composite of captured pixels (the product photo) and synthetic ones made without a trained
 * model (the local scene and video engines); `algorithmicMedia` for pixels computed by a procedure
 * with no trained model (the local environment engine's procedural sets).
 */
export const DIGITAL_SOURCE_TYPES = [
  'trainedAlgorithmicMedia',
  'compositeWithTrainedAlgorithmicMedia',
  'compositeSynthetic',
  'algorithmicMedia',
] as const;
export type DigitalSourceType = (typeof DIGITAL_SOURCE_TYPES)[number];

export const PROVENANCE_FORMATS = ['image/png', 'image/jpeg', 'video/mp4'] as const;
export type ProvenanceFormat = (typeof PROVENANCE_FORMATS)[number];

/** An input the file was made from: an asset of the brand, named by id and by the SHA-256 of its bytes. */
export interface IngredientFact {
  assetId: string;
  title: string;
  format: string;
  sha256: string;
  /**
   * `componentOf`: its pixels are in the result (the local engines composite the real product and
   * place the environment or start frame); `inputTo`: a reference a model was given.
   */
  relationship: 'componentOf' | 'inputTo';
}

export interface ProvenanceFacts {
  /** The file's name. */
  title: string;
  format: ProvenanceFormat;
  sourceType: DigitalSourceType;
  /** Atelier's version and the engine (`local`, `openai-images:<model>`...) and model that made it. */
  generator: { version: string; engine: string; model?: string };
  /** What the file is, in words (a scene variation, an environment, a video...). */
  description?: string;
  ingredients: IngredientFact[];
}

export const sourceTypeUri = (t: DigitalSourceType) => `${IPTC_SOURCE_TYPES}${t}`;

/** The ingredient's label in the manifest, by which the `c2pa.placed` actions name it. */
const ingredientLabel = (i: number) => `ingredient-${i + 1}`;

/** The software agent of the actions: the engine (and model when a provider's). */
export function softwareAgent(g: ProvenanceFacts['generator']): { name: string; version?: string } {
  if (g.model) return { name: g.model };
  return { name: `Atelier ${g.engine} engine`, version: g.version };
}

/**
 * The C2PA manifest definition: one `c2pa.created` action with the digital source type and the
 * engine as software agent, then one `c2pa.placed` per ingredient whose pixels are in the result
 * (C2PA 2.x wants `created` or `opened` first and `placed` to name a `componentOf` ingredient), the
 * generator (Atelier and its version), and the ingredients' own definitions (added with their bytes,
 * so an ingredient that carries credentials brings its manifest along).
 */
export function manifestDefinition(f: ProvenanceFacts): {
  definition: Record<string, unknown>;
  ingredients: { definition: Record<string, unknown>; fact: IngredientFact }[];
} {
  const parameters: Record<string, string> = { 'org.atelier.engine': f.generator.engine };
  if (f.generator.model) parameters['org.atelier.model'] = f.generator.model;
  const actions: Record<string, unknown>[] = [
    {
      action: 'c2pa.created',
      digitalSourceType: sourceTypeUri(f.sourceType),
      softwareAgent: softwareAgent(f.generator),
      ...(f.description ? { description: f.description } : {}),
      parameters,
    },
  ];
  f.ingredients.forEach((ing, i) => {
    if (ing.relationship === 'componentOf') {
      actions.push({ action: 'c2pa.placed', parameters: { ingredientIds: [ingredientLabel(i)] } });
    }
  });
  return {
    definition: {
      claim_generator_info: [{ name: 'Atelier', version: f.generator.version }],
      title: f.title,
      format: f.format,
      assertions: [{ label: 'c2pa.actions.v2', data: { actions } }],
    },
    ingredients: f.ingredients.map((fact, i) => ({
      fact,
      definition: {
        title: fact.title,
        format: fact.format,
        relationship: fact.relationship,
        label: ingredientLabel(i),
        // The asset by id and hash: a reader can tell which upload it was and that it is unchanged.
        instance_id: `urn:atelier:asset:${fact.assetId}`,
        metadata: { 'org.atelier.sha256': fact.sha256 },
      },
    })),
  };
}

const escapeXml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/**
 * An XMP packet with the same facts for readers that do not read C2PA: Iptc4xmpExt:DigitalSourceType
 * (what the EU's and the IPTC's guidance name), the creator tool (Atelier and the engine).
 */
export function xmpPacket(f: Pick<ProvenanceFacts, 'sourceType' | 'generator'>): string {
  const tool = `Atelier ${f.generator.version} (${f.generator.model ?? `${f.generator.engine} engine`})`;
  return (
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>' +
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
    '<rdf:Description rdf:about=""' +
    ' xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"' +
    ' xmlns:xmp="http://ns.adobe.com/xap/1.0/"' +
    ` Iptc4xmpExt:DigitalSourceType="${escapeXml(sourceTypeUri(f.sourceType))}"` +
    ` xmp:CreatorTool="${escapeXml(tool)}"/>` +
    '</rdf:RDF></x:xmpmeta><?xpacket end="w"?>'
  );
}
