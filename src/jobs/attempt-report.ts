import type { AttemptOutcome, JobLabels, JobLogger, JobObserver } from './types.ts';

/**
 * How both drivers tell what happened to a job: one log line and one observer call (metrics)
 * per event, so the two drivers log and count alike. A job's logger carries its name, id,
 * queue and attempt already (the drivers bind them).
 */
export interface JobReports {
  /** Starts timing an attempt; call exactly one of the returned functions when it ends. */
  attempt(labels: JobLabels, log: JobLogger): AttemptReport;
  /** A running job taken over after its lease lapsed (its worker died or froze). */
  stalled(labels: JobLabels, log: JobLogger, fields?: Record<string, unknown>): void;
  /** A job failed for good without an attempt ending here (bad payload, workers that kept dying). */
  failedOutside(labels: JobLabels, log: JobLogger, err: Error, message: string): void;
}

export interface AttemptReport {
  completed(): void;
  retried(err: Error, fields?: Record<string, unknown>): void;
  failed(err: Error): void;
}

export const noopObserver: JobObserver = { attemptEnded() {}, failedOutside() {}, stalled() {} };

export function createJobReports(o: { observer: JobObserver; successLevel: 'info' | 'debug' }): JobReports {
  const { observer, successLevel } = o;
  return {
    attempt(labels, log) {
      const started = performance.now();
      const end = (outcome: AttemptOutcome): number => {
        const seconds = (performance.now() - started) / 1000;
        observer.attemptEnded({ ...labels, outcome, seconds });
        return Math.round(seconds * 1000);
      };
      return {
        completed() {
          log[successLevel]({ durationMs: end('completed') }, 'job completed');
        },
        retried(err, fields = {}) {
          log.warn({ err, durationMs: end('retried'), ...fields }, 'job attempt failed; will retry');
        },
        failed(err) {
          log.error({ err, durationMs: end('failed') }, 'job failed after its last attempt');
        },
      };
    },
    stalled(labels, log, fields = {}) {
      observer.stalled(labels);
      log.warn(fields, 'job taken over after its lease expired: the worker running it stopped or froze');
    },
    failedOutside(labels, log, err, message) {
      observer.failedOutside(labels);
      log.error({ err }, message);
    },
  };
}
