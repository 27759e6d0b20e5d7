import { describe, expect, it } from 'vitest';
import { can, grantsOf, isRole, PERMISSIONS, ROLES } from './access.roles.ts';

describe('roles', () => {
  it('each role holds every permission of the role below it', () => {
    const ladder = ['viewer', 'member', 'admin', 'owner'] as const;
    for (let i = 1; i < ladder.length; i++) {
      const lower = grantsOf(ladder[i - 1] as (typeof ladder)[number]);
      const higher = grantsOf(ladder[i] as (typeof ladder)[number]);
      for (const p of lower) expect(higher, `${ladder[i]} ⊇ ${ladder[i - 1]}`).toContain(p);
      expect(higher.length).toBeGreaterThan(lower.length);
    }
    expect([...grantsOf('owner')].sort()).toEqual([...PERMISSIONS].sort());
  });

  it('matches the table in docs/decisions/access.md', () => {
    expect(grantsOf('viewer')).toEqual(['read']);
    expect(can('member', 'brands:write')).toBe(true);
    expect(can('member', 'generate')).toBe(true);
    expect(can('member', 'brands:delete')).toBe(false);
    expect(can('admin', 'keys:manage')).toBe(true);
    expect(can('admin', 'org:manage')).toBe(false);
    expect(can('owner', 'org:manage')).toBe(true);
  });

  it('grants nothing to an unknown role', () => {
    for (const role of ['', 'root', 'Owner', 'constructor', '__proto__', 'toString']) {
      expect(isRole(role)).toBe(false);
      for (const p of PERMISSIONS) expect(can(role, p)).toBe(false);
    }
    expect(ROLES.every(isRole)).toBe(true);
  });
});
