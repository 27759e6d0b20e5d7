import { describe, expect, it } from 'vitest';
import { assignableRoles, canManage, managesMembers } from '../src/members.ts';

describe('member rules', () => {
  it('owners give any role, admins any but owner', () => {
    expect(assignableRoles('owner')).toEqual(['owner', 'admin', 'member', 'viewer']);
    expect(assignableRoles('admin')).toEqual(['admin', 'member', 'viewer']);
  });

  it('nobody manages themselves; owners are managed by owners only; members and viewers manage nobody', () => {
    expect(canManage('admin', { role: 'member', isYou: false })).toBe(true);
    expect(canManage('admin', { role: 'admin', isYou: true })).toBe(false);
    expect(canManage('admin', { role: 'owner', isYou: false })).toBe(false);
    expect(canManage('owner', { role: 'owner', isYou: false })).toBe(true);
    expect(canManage('member', { role: 'viewer', isYou: false })).toBe(false);
    expect(managesMembers('admin') && managesMembers('owner') && !managesMembers('member')).toBe(true);
  });
});
