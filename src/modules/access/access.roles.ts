/**
 * Roles a user holds in their organization, and what each may do. A key acts with its owner's
 * live role. Documented in docs/decisions/access.md ("Roles").
 */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = [
  'read', // read every resource of the organization
  'brands:write',
  'assets:write',
  'brand-dna:write',
  'generate', // scene forges, environments, enhancements, videos, extraction
  'brands:delete',
  'assets:delete',
  'keys:manage',
  'members:manage',
  'webhooks:manage', // the organization's webhook endpoints and their secrets
  'org:manage',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const GRANTS: Record<Role, readonly Permission[]> = {
  viewer: ['read'],
  member: ['read', 'brands:write', 'assets:write', 'brand-dna:write', 'generate'],
  admin: [
    'read',
    'brands:write',
    'assets:write',
    'brand-dna:write',
    'generate',
    'brands:delete',
    'assets:delete',
    'keys:manage',
    'members:manage',
    'webhooks:manage',
  ],
  owner: PERMISSIONS,
};

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function can(role: string, permission: Permission): boolean {
  return isRole(role) && GRANTS[role].includes(permission);
}

export function grantsOf(role: Role): readonly Permission[] {
  return GRANTS[role];
}
