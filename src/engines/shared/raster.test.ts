import { describe, expect, it } from 'vitest';
import { boundsWhere, chamferDistance, components } from './raster.ts';

/** A mask from rows of '#' (set) and '.' (clear). */
const grid = (...rows: string[]) => ({
  mask: Uint8Array.from(rows.join('').split(''), (c) => (c === '#' ? 1 : 0)),
  width: rows[0]!.length,
  height: rows.length,
});

describe('components', () => {
  it('labels 8-connected pieces in scan order, with area, mass, box and whether they touch the edge', () => {
    const { mask, width, height } = grid(
      '##....', //
      '.#..#.',
      '....##',
      '......',
      '..#...',
    );
    const weights = Array.from(mask, (_, i) => i);
    const { labels, list } = components(mask, width, height, weights);
    expect(list.map((c) => c.area)).toEqual([3, 3, 1]);
    expect(list[0]).toEqual({
      label: 1,
      area: 3,
      mass: 0 + 1 + 7,
      left: 0,
      top: 0,
      right: 1,
      bottom: 1,
      touchesBorder: true,
    });
    expect(list[1]).toMatchObject({ left: 4, top: 1, right: 5, bottom: 2, touchesBorder: true, mass: 10 + 16 + 17 });
    expect(list[2]).toMatchObject({ left: 2, top: 4, right: 2, bottom: 4, touchesBorder: true });
    expect(labels[7]).toBe(1);
    expect(labels[10]).toBe(2);
    expect(labels[26]).toBe(3);
    expect(labels[2]).toBe(0);
    // Diagonal neighbours join; a piece clear of the edges says so.
    const inner = grid('.....', '.#...', '..#..', '.....');
    const one = components(inner.mask, inner.width, inner.height).list;
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({ area: 2, mass: 2, touchesBorder: false });
  });

  it('finds nothing in an empty mask', () => {
    expect(components(new Uint8Array(12), 4, 3).list).toEqual([]);
  });
});

describe('chamferDistance', () => {
  it('is 0 on the sources and grows by about one per pixel away from them, up to the cap', () => {
    const { mask, width, height } = grid('#......', '.......', '.......');
    const d = chamferDistance(mask, width, height);
    expect(d[0]).toBe(0);
    expect(d[1]).toBe(1);
    expect(d[6]).toBe(6);
    expect(d[width + 1]).toBeCloseTo(4 / 3, 6); // a diagonal step: 4/3, near √2
    expect(chamferDistance(mask, width, height, 2)[6]).toBe(2);
  });

  it('is the cap everywhere (Infinity by default) without a source; the frame edge is no source', () => {
    expect(Array.from(chamferDistance(new Uint8Array(4), 2, 2))).toEqual(Array(4).fill(Number.POSITIVE_INFINITY));
    expect(Array.from(chamferDistance(new Uint8Array(4), 2, 2, 5))).toEqual([5, 5, 5, 5]);
  });
});

describe('boundsWhere', () => {
  it('bounds the accepted pixels, or says there are none', () => {
    const { mask, width, height } = grid('....', '.##.', '..#.');
    expect(boundsWhere(width, height, (i) => mask[i] === 1)).toEqual({ l: 1, t: 1, r: 2, b: 2 });
    expect(boundsWhere(width, height, () => false)).toBeUndefined();
  });
});
