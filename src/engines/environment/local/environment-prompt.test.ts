import { describe, expect, it } from 'vitest';
import {
  type EnvironmentPlan,
  MATERIAL_BASE,
  readEnvironmentPrompt,
  resolveColors,
  type Rgb,
} from './environment-prompt.ts';
import { rgbToHsl } from '../../../adapters/media/colors.ts';

const hue = (c: Rgb | null) => (c ? rgbToHsl(c)[0] : Number.NaN);
const lightness = (c: Rgb | null) => (c ? rgbToHsl(c)[2] : Number.NaN);

describe('readEnvironmentPrompt: surfaces, places and layouts', () => {
  it.each<[string, Partial<EnvironmentPlan>]>([
    // Defaults for places that name no material.
    ['a kitchen counter', { layout: 'room', floor: 'marble', wall: 'tile' }],
    ['bathroom shelf', { layout: 'room', floor: 'marble', wall: 'tile' }],
    ['beach', { layout: 'outdoor', floor: 'sand', wall: 'sky' }],
    ['in the desert at noon', { layout: 'outdoor', floor: 'sand', wall: 'sky' }],
    ['studio', { layout: 'sweep', floor: 'paper', wall: 'paper' }],
    ['on a dining table', { layout: 'room', floor: 'wood', wall: 'plaster' }],
    ['hotel bed', { floor: 'linen', wall: 'plaster' }],
    ['industrial loft', { floor: 'concrete', wall: 'concrete' }],
    ['by the pool', { floor: 'water', wall: 'tile' }],
    ['mediterranean terrace', { floor: 'stone', wall: 'plaster' }],
    // Named materials.
    ['marble', { floor: 'marble', wall: 'plaster' }],
    ['oak planks', { floor: 'wood' }],
    ['wrinkled linen tablecloth', { floor: 'linen' }],
    ['emerald velvet', { floor: 'velvet' }],
    ['raw concrete', { floor: 'concrete', wall: 'concrete' }],
    ['rippled water', { floor: 'water', wall: 'sky', layout: 'outdoor' }],
    ['seamless paper', { layout: 'sweep', floor: 'paper', wall: 'paper' }],
    ['terrazzo', { floor: 'terrazzo' }],
    ['travertine', { floor: 'stone' }],
    ['zellige tiles', { floor: 'tile', wall: 'tile' }],
    // Which surface is the wall.
    ['marble counter against a plaster wall', { floor: 'marble', wall: 'plaster' }],
    ['wood floor in front of a concrete wall', { floor: 'wood', wall: 'concrete' }],
    ['a tiled backsplash behind a walnut countertop', { floor: 'wood', wall: 'tile' }],
    ['linen drape', { floor: 'linen', wall: 'linen' }],
    ['marble slab in a studio', { floor: 'marble', wall: 'paper', layout: 'room' }],
    // Views.
    ['flat lay on linen', { layout: 'flatlay', floor: 'linen', horizon: 0 }],
    ['top-down shot of a terrazzo table', { layout: 'flatlay', floor: 'terrazzo' }],
    // Nothing the reader knows: a studio sweep.
    ['a product', { layout: 'sweep', floor: 'paper', wall: 'paper', recognised: [] }],
    ['', { layout: 'sweep', floor: 'paper' }],
  ])('%j', (prompt, want) => {
    expect(readEnvironmentPrompt(prompt)).toMatchObject(want);
  });

  it('puts the floor line between 0.45 and 0.72 of the height for every non-flat layout', () => {
    for (const p of ['studio', 'marble', 'beach', 'low angle marble', 'high angle wood table', 'close-up linen']) {
      const { horizon } = readEnvironmentPrompt(p);
      expect(horizon).toBeGreaterThanOrEqual(0.45);
      expect(horizon).toBeLessThanOrEqual(0.72);
    }
    expect(readEnvironmentPrompt('low angle marble').horizon).toBeGreaterThan(
      readEnvironmentPrompt('high angle marble').horizon,
    );
  });

  it('is deterministic and ignores case and punctuation', () => {
    const a = readEnvironmentPrompt('Dark WOOD table, against a Sage plaster wall — golden hour!');
    const b = readEnvironmentPrompt('dark wood table against a sage plaster wall golden hour');
    expect(a).toEqual(b);
    expect(readEnvironmentPrompt('dark wood table')).toEqual(readEnvironmentPrompt('dark wood table'));
  });
});

describe('readEnvironmentPrompt: light and mood', () => {
  it.each<[string, (p: EnvironmentPlan) => void]>([
    [
      'golden hour light from the left',
      (p) => {
        expect(p.light.angle).toBeGreaterThan(150);
        expect(p.light.sideGiven).toBe(true);
        expect(p.light.temperature).toBeGreaterThan(0.6);
      },
    ],
    [
      'cool daylight from the right',
      (p) => {
        expect(p.light.angle).toBeLessThan(90);
        expect(p.light.temperature).toBeLessThan(-0.3);
      },
    ],
    ['overhead light', (p) => expect(p.light.angle).toBe(90)],
    [
      'sunset',
      (p) => {
        expect(p.light.temperature).toBeGreaterThan(0.8);
        expect(p.light.sideGiven).toBe(false);
        expect(Math.min(p.light.angle, 180 - p.light.angle)).toBeLessThan(25);
      },
    ],
    ['studio', (p) => expect(p.light).toMatchObject({ temperature: 0, gobo: 'none', sideGiven: false })],
    ['morning', (p) => expect(p.light.temperature).toBeGreaterThan(0)],
    ['evening', (p) => expect(p.light.temperature).toBeGreaterThan(0.3)],
    ['blue hour', (p) => expect(p.light.temperature).toBeLessThan(-0.5)],
    ['soft diffuse light', (p) => expect(p.light.hardness).toBeLessThan(0.1)],
    ['sunlight through a window onto linen', (p) => expect(p.light).toMatchObject({ gobo: 'window' })],
    ['palm shadows on plaster', (p) => expect(p.light.gobo).toBe('palm')],
    ['dappled light through leaves', (p) => expect(p.light.gobo).toBe('leaves')],
    ['soft window light', (p) => expect(p.light.gobo).toBe('none')],
    ['beach, harsh sun', (p) => expect(p.light.gobo).toBe('none')],
    ['bright and airy', (p) => expect(p.mood).toBeGreaterThan(0.5)],
    ['dark and moody', (p) => expect(p.mood).toBeLessThan(-0.5)],
    ['candlelit', (p) => expect(p.mood).toBeLessThan(0)],
  ])('%j', (prompt, check) => check(readEnvironmentPrompt(prompt)));

  it('reads "dark" and "light" as tones of the surface they describe, not as mood', () => {
    const dark = readEnvironmentPrompt('dark wood');
    expect(dark.mood).toBe(0);
    expect(dark.floorTone).toBeLessThan(0);
    const light = readEnvironmentPrompt('light oak floor');
    expect(light.mood).toBe(0);
    expect(light.floorTone).toBeGreaterThan(0);
  });
});

describe('readEnvironmentPrompt: colour words', () => {
  it('gives a colour to the surface or wall it precedes', () => {
    const p = readEnvironmentPrompt('terracotta wall with a white marble floor');
    expect(hue(p.wallColor)).toBeGreaterThan(5);
    expect(hue(p.wallColor)).toBeLessThan(30);
    expect(lightness(p.floorColor)).toBeGreaterThan(0.85);
    expect(p.floor).toBe('marble');
  });

  it('applies tone words: pastel pink is light, navy is dark, sage is muted green', () => {
    expect(lightness(readEnvironmentPrompt('pastel pink paper').floorColor)).toBeGreaterThan(0.8);
    expect(lightness(readEnvironmentPrompt('navy velvet').floorColor)).toBeLessThan(0.3);
    const sage = readEnvironmentPrompt('sage green linen').floorColor!;
    expect(hue(sage)).toBeGreaterThan(70);
    expect(hue(sage)).toBeLessThan(140);
    expect(lightness(readEnvironmentPrompt('deep emerald velvet').floorColor)).toBeLessThan(
      lightness(readEnvironmentPrompt('emerald velvet').floorColor),
    );
  });

  it('keeps colours that describe no surface as loose colours', () => {
    const p = readEnvironmentPrompt('a calm scene in sage and terracotta');
    expect(p.looseColors).toHaveLength(2);
    expect(p.floorColor).toBeNull();
    expect(p.wallColor).toBeNull();
  });

  it('treats material names with a colour of their own (walnut, slate) as coloured surfaces', () => {
    expect(lightness(readEnvironmentPrompt('walnut').floorColor)).toBeLessThan(0.35);
    expect(readEnvironmentPrompt('slate').floor).toBe('stone');
    expect(lightness(readEnvironmentPrompt('slate').floorColor)).toBeLessThan(0.35);
  });
});

describe('resolveColors', () => {
  const red: Rgb = [230, 20, 30];
  const blue: Rgb = [20, 60, 230];

  it('paints a studio sweep with the strongest palette colour, tamed', () => {
    const plan = readEnvironmentPrompt('studio');
    const c = resolveColors(plan, [red]);
    expect(c.wall).toEqual(c.floor);
    const [h, s] = rgbToHsl(c.wall);
    expect(h < 20 || h > 340).toBe(true);
    expect(s).toBeLessThanOrEqual(0.51);
    expect(hue(resolveColors(plan, [blue]).wall)).toBeGreaterThan(200);
  });

  it('puts the palette on a colourable wall only when the prompt names neither colour nor wall', () => {
    const plan = readEnvironmentPrompt('wooden table');
    const c = resolveColors(plan, [blue]);
    expect(hue(c.floor)).toBeLessThan(45);
    expect(hue(c.wall)).toBeGreaterThan(200);
    expect(c.brandAccent).toBeNull();
  });

  it('keeps a named material its own colour; the palette becomes the accent', () => {
    // "a warm plaster wall" with a maroon brand: plaster-coloured, never maroon.
    const maroon: Rgb = [110, 34, 40];
    const plan = readEnvironmentPrompt('a warm plaster wall, oak shelf');
    expect(plan.wallNamed).toBe(true);
    const c = resolveColors(plan, [maroon]);
    expect(c.wall).toEqual(resolveColors(plan, []).wall);
    expect(c.floor).toEqual(resolveColors(plan, []).floor);
    expect(c.brandAccent).not.toBeNull();
    expect(hue(c.brandAccent!) < 20 || hue(c.brandAccent!) > 340).toBe(true);
  });

  it('lets any named colour keep the palette off every surface', () => {
    // The colour names the wall; the unnamed floor (a place default) is not the brand's either.
    const plan = readEnvironmentPrompt('sage wall in a bedroom');
    const c = resolveColors(plan, [red, blue]);
    const plain = resolveColors(plan, []);
    expect(c.wall).toEqual(plain.wall);
    expect(c.floor).toEqual(plain.floor);
    expect(c.brandAccent).not.toBeNull();
  });

  it('picks an accent that stands apart from the wall (no red prop on a red wall)', () => {
    const plan = readEnvironmentPrompt('red plaster wall');
    const c = resolveColors(plan, [red, blue]);
    expect(hue(c.brandAccent!)).toBeGreaterThan(200);
    // Only neutral brand colours: no accent prop.
    expect(
      resolveColors(plan, [
        [20, 20, 20],
        [240, 240, 240],
      ]).brandAccent,
    ).toBeNull();
  });

  it('still lets the palette colour a paper sweep the prompt gives no colour', () => {
    const c = resolveColors(readEnvironmentPrompt('seamless paper sweep'), [red]);
    expect(hue(c.wall) < 20 || hue(c.wall) > 340).toBe(true);
    expect(c.brandAccent).toBeNull();
  });

  it('lets prompt colours win over the palette', () => {
    const plan = readEnvironmentPrompt('sage plaster wall');
    expect(hue(resolveColors(plan, [red]).wall)).toBeGreaterThan(70);
  });

  it('uses the palette for terrazzo chips, not its matrix', () => {
    const plan = readEnvironmentPrompt('terrazzo floor');
    const c = resolveColors(plan, [red, blue]);
    expect(lightness(c.floor)).toBeGreaterThan(0.8);
    expect(c.accents).toHaveLength(2);
  });

  it('gives the natural colours without a palette', () => {
    const plan = readEnvironmentPrompt('marble');
    expect(resolveColors(plan, []).floor).toEqual(MATERIAL_BASE.marble);
  });
});

describe('subjects the local engine cannot draw', () => {
  it('lists object and place words in prompt order, two-word phrases whole', () => {
    expect(readEnvironmentPrompt('a cap on a park bench by a beach hut, golden light').subjects).toEqual([
      'park bench',
      'beach hut',
    ]);
    expect(readEnvironmentPrompt('marble kitchen counter with flowers and a vase').subjects).toEqual([
      'kitchen',
      'flowers',
      'vase',
    ]);
  });

  it('lists nothing for surfaces, colours and light', () => {
    expect(readEnvironmentPrompt('sage plaster wall, walnut table, golden hour, palm shadows').subjects).toEqual([]);
    expect(readEnvironmentPrompt('beach at sunset').subjects).toEqual([]);
  });
});
