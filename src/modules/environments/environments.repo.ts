import type { Database } from '../../adapters/db/database.ts';
import type { EnvironmentGenerationsTable } from './environments.tables.ts';
import { createRunsRepo } from '../generation/runs.repo.ts';

export type EnvironmentRow = EnvironmentGenerationsTable;

export const createEnvironmentsRepo = (db: Database) => createRunsRepo(db, 'environment_generations');
export type EnvironmentsRepo = ReturnType<typeof createEnvironmentsRepo>;
