/**
 * The environment engine port: a backdrop image (no product) from a text prompt. `local` is
 * procedural (src/engines/environment/local); providers share the image providers' adapters.
 */
import type { EngineWarning, SetLight } from '../image/scene-engine.ts';

export interface EnvironmentRequest {
  prompt: string;
  width: number;
  height: number;
  /** Deterministic seed: the same prompt, size and seed give the same image. */
  seed: number;
  /** Brand colours, `#rrggbb`, strongest first; may be empty. */
  palette: string[];
  /**
   * A forge's variation (0..3, others wrap): the set is shot as that variation's shot (shot.ts:
   * camera height and turn, light, props, where the product will stand). Absent: a shot by seed.
   */
  variationIndex?: number;
  signal?: AbortSignal;
}

export interface EnvironmentResult {
  /** PNG bytes, exactly width × height. */
  png: Buffer;
  width: number;
  height: number;
  /**
   * Where a product would stand: the floor line (fraction of the height from the top, 0..1) and
   * the light's direction (degrees, 0 = from the right, 90 = from above, 180 = from the left), so a
   * scene composited on this backdrop puts shadows where its light says.
   */
  horizon: number;
  lightAngle: number;
  /** The key light as built (a renderer that knows it), for products lit to agree. */
  light?: SetLight;
  /** Floor depth seen per unit of width where the product stands (camera height over distance). */
  camera?: number;
  warnings: EngineWarning[];
  engine: string;
}

export interface EnvironmentEngine {
  readonly name: string;
  generate(req: EnvironmentRequest): Promise<EnvironmentResult>;
}
