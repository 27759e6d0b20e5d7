import type { ParseArgsConfig } from 'node:util';
import { int } from './context.ts';

/** `--page N --limit N`: the options of a list command that pages. */
export const PAGING = {
  page: { type: 'string' },
  limit: { type: 'string' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** The list query's `page` and `limit`, from --page and --limit (each only when given). */
export const pageQuery = (values: { page?: string | undefined; limit?: string | undefined }) => ({
  ...(values.page ? { page: int(values.page, '--page') } : {}),
  ...(values.limit ? { limit: int(values.limit, '--limit') } : {}),
});

/** The line under a listed page: `(page 2 of 5, 93 forges)`; a list with no pages says `of 1`. */
export const pageLine = (p: { currentPage: number; totalPages: number; totalItems: number }, items: string) =>
  `(page ${p.currentPage} of ${Math.max(p.totalPages, 1)}, ${p.totalItems} ${items})`;
