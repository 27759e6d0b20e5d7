/** Types of scripts/check-node.mjs (plain JavaScript so it runs before anything is compiled). */
export declare const MINIMUM: string;
export declare function nodeProblem(versions?: NodeJS.ProcessVersions, minimum?: string): string | undefined;
