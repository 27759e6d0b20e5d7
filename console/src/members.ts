/** Who may do what to whom on the Members screen (pure, unit-tested; the server enforces the same). */
export type Role = 'owner' | 'admin' | 'member' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'viewer'];

export const ROLE_HELP: Record<Role, string> = {
  owner: 'Everything, including the owner role',
  admin: 'Everything but the owner role: members, keys, deletions',
  member: 'Brands, assets, Brand DNA and generation',
  viewer: 'Reads everything, changes nothing',
};

/** Whether a role manages members (the Members screen is for them). */
export const managesMembers = (role: string) => role === 'owner' || role === 'admin';

/** The roles `me` may give: an owner any, an admin any but owner. */
export function assignableRoles(me: string): Role[] {
  return me === 'owner' ? [...ROLES] : ROLES.filter((r) => r !== 'owner');
}

/** Whether `me` may change or remove `member`: never themselves; an owner only by an owner. */
export function canManage(me: string, member: { role: string; isYou: boolean }): boolean {
  if (member.isYou || !managesMembers(me)) return false;
  return member.role !== 'owner' || me === 'owner';
}
