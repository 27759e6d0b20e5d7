import { describe, expect, it } from 'vitest';
import { ConfigError, str } from './env-settings.ts';
import { localProvider, type Provider, providerRegistry } from './provider-registry.ts';

interface Engine {
  name: string;
}

const echo: Provider<'echo', { word: string }, { prefix?: string }, Engine> = {
  kind: 'echo',
  parseSettings(env) {
    const word = str(env, 'ECHO_WORD');
    if (!word) throw new ConfigError('ECHO_WORD', 'is required when TEST_ENGINE=echo');
    return { word };
  },
  create: (settings, deps) => ({ name: `${deps.prefix ?? ''}${settings.word}` }),
};

const checked: string[] = [];
const registry = providerRegistry(
  { variable: 'TEST_ENGINE', fallback: 'local', what: 'test engine', check: (env) => void checked.push(env.X ?? '') },
  [localProvider<Engine>('createTestEngine'), echo],
);

describe('providerRegistry', () => {
  it('lists the kinds, parses the chosen provider tagged with its kind, the family check first', () => {
    expect(registry.kinds).toEqual(['local', 'echo']);
    expect(registry.parse({})).toEqual({ provider: 'local' });
    expect(registry.parse({ TEST_ENGINE: ' echo ', ECHO_WORD: 'hi', X: 'x' })).toEqual({
      provider: 'echo',
      word: 'hi',
    });
    expect(checked).toEqual(['', 'x']);
  });

  it('names the variable at fault', () => {
    const failure = (env: Record<string, string>) => {
      try {
        registry.parse(env);
      } catch (err) {
        return err as ConfigError;
      }
      throw new Error('no error');
    };
    expect(failure({ TEST_ENGINE: 'nope' })).toMatchObject({
      setting: 'TEST_ENGINE',
      message: 'Invalid setting TEST_ENGINE: expected one of local, echo, got "nope"',
    });
    expect(failure({ TEST_ENGINE: 'echo' })).toBeInstanceOf(ConfigError);
    expect(failure({ TEST_ENGINE: 'echo' }).setting).toBe('ECHO_WORD');
  });

  it('creates the provider of the settings without the tag; local comes from deps', () => {
    expect(registry.create({ provider: 'echo', word: 'hi' }, { prefix: '>' })).toEqual({ name: '>hi' });
    const local = { name: 'local' };
    expect(registry.create({ provider: 'local' }, { local })).toBe(local);
    expect(registry.create({ provider: 'local' }, { local: () => local })).toBe(local);
    expect(() => registry.create({ provider: 'local' }, {})).toThrow(/createTestEngine: .*deps\.local/);
    expect(() => registry.create({ provider: 'gone' } as never, {})).toThrow(/unknown test engine "gone"/);
  });

  it('may choose the provider by a function instead of a variable', () => {
    const chosen = providerRegistry(
      {
        variable: 'ECHO_WORD',
        fallback: 'local',
        what: 'test engine',
        choose: (env) => (env.ECHO_WORD ? 'echo' : 'local'),
      },
      [localProvider<Engine>('createTestEngine'), echo],
    );
    expect(chosen.parse({ ECHO_WORD: 'yo' })).toEqual({ provider: 'echo', word: 'yo' });
    expect(chosen.parse({})).toEqual({ provider: 'local' });
  });
});
