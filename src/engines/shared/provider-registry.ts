import { type Env, oneOf } from './env-settings.ts';

/**
 * One provider of an engine family (scenes, videos, prompt text): its name as the family's
 * selector variable gives it (`IMAGE_ENGINE=fal`), its settings read from the environment, and
 * the engine it makes from them. A provider lives in its engine's folder; its family's registry
 * (`src/engines/<family>/providers.ts`) lists it, one line per provider.
 */
export interface Provider<Kind extends string, Settings extends object, Deps, Engine> {
  readonly kind: Kind;
  /**
   * This provider's settings from the environment, its defaults left to the engine. A bad or
   * missing value throws a ConfigError (./env-settings.ts) naming the variable.
   */
  parseSettings(env: Env): Settings;
  /** The engine. `deps` are the family's (fetchers, clock, the local engine...). */
  create(settings: Settings, deps: Deps): Engine;
}

// Method parameters are bivariant, so every provider of a family is one of these.
type AnyProvider = Provider<string, object, never, unknown>;

/** The settings of one of `P`'s providers, tagged with its kind: `{ provider: 'fal', apiKey... }`. */
export type SettingsOf<P> = P extends Provider<infer K, infer S, infer _D, infer _E> ? { provider: K } & S : never;
/** The settings of a registry's providers: `RegistrySettings<typeof IMAGE_PROVIDERS>`. */
export type RegistrySettings<R extends { providers: readonly unknown[] }> = SettingsOf<R['providers'][number]>;
type DepsOf<P> = P extends Provider<string, object, infer D, infer _E> ? D : never;
type EngineOf<P> = P extends Provider<string, object, infer _D, infer E> ? E : never;

export interface ProviderRegistry<P extends AnyProvider> {
  readonly providers: readonly P[];
  /** The selector variable (`IMAGE_ENGINE`). */
  readonly variable: string;
  /** The providers' kinds, in the registry's order. */
  readonly kinds: readonly P['kind'][];
  /**
   * The chosen provider (the selector variable, or the family's default) and its settings. The
   * family's shared variables are checked whichever provider is chosen.
   */
  parse(env: Env): SettingsOf<P>;
  /** The engine of `settings.provider`, made from the other members of `settings`. */
  create(settings: SettingsOf<P>, deps: DepsOf<P>): EngineOf<P>;
}

export interface ProviderFamily<Kind extends string> {
  /** The selector variable (`IMAGE_ENGINE`). */
  variable: string;
  /** The provider chosen when the variable is unset. */
  fallback: Kind;
  /** What messages call one engine of the family (`image engine`). */
  what: string;
  /** Checks the variables every provider of the family reads, whichever is chosen; throws a ConfigError. */
  check?: (env: Env) => void;
  /**
   * Chooses the provider from other variables, for a family whose choice no variable names (text:
   * `openai-compatible` when LLM_* are set). Default: the selector variable, else `fallback`.
   */
  choose?: (env: Env) => Kind;
}

export function providerRegistry<const P extends readonly AnyProvider[]>(
  family: ProviderFamily<P[number]['kind']>,
  providers: P,
): ProviderRegistry<P[number]> {
  type One = P[number];
  const byKind = new Map<string, One>(providers.map((p) => [p.kind, p]));
  const kinds = providers.map((p) => p.kind as One['kind']);
  return {
    providers,
    variable: family.variable,
    kinds,
    parse(env) {
      const kind = family.choose ? family.choose(env) : oneOf(env, family.variable, kinds, family.fallback);
      family.check?.(env);
      return { provider: kind, ...byKind.get(kind)!.parseSettings(env) } as SettingsOf<One>;
    },
    create(settings, deps) {
      const { provider, ...rest } = settings as { provider: string };
      const p = byKind.get(provider);
      if (!p) throw new Error(`unknown ${family.what} "${String(provider)}" (known: ${kinds.join(', ')})`);
      return p.create(rest, deps as never) as EngineOf<One>;
    },
  };
}

/** The deps of a family whose local engine is passed in (see localProvider). */
export interface LocalEngineDeps<Engine> {
  /** The local engine, or a function making it; required for `local`. */
  local?: Engine | (() => Engine) | undefined;
}

/**
 * The `local` provider of a family whose local engine is passed in (`deps.local`, an engine or a
 * function making one) rather than imported, so the family's factory does not load it for
 * deployments that use a provider. No settings.
 */
export function localProvider<Engine>(factory: string): Provider<'local', object, LocalEngineDeps<Engine>, Engine> {
  return {
    kind: 'local',
    parseSettings: () => ({}),
    create(_settings, deps) {
      if (!deps.local) throw new Error(`${factory}: the local engine must be passed as deps.local`);
      return typeof deps.local === 'function' ? (deps.local as () => Engine)() : deps.local;
    },
  };
}
