/** Storage folder of a version's artifacts (per-source findings). */
export const versionFolder = (orgId: string, versionId: string) => `orgs/${orgId}/brand-dna/${versionId}/`;
