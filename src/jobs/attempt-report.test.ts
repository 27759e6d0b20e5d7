import { describe, expect, it } from 'vitest';
import { createJobReports } from './attempt-report.ts';
import { recordingLogger } from './jobs.test-harness.ts';
import type { JobObserver } from './types.ts';

function observed() {
  const calls: [string, object][] = [];
  const observer: JobObserver = {
    attemptEnded: (e) => void calls.push(['attemptEnded', e]),
    failedOutside: (e) => void calls.push(['failedOutside', e]),
    stalled: (e) => void calls.push(['stalled', e]),
  };
  return { calls, observer };
}

const labels = { queue: 'media', job: 'assets.process' };

describe('job reports (one log line and one observer call per event)', () => {
  it('times an attempt and tells its outcome to the observer and the log', async () => {
    const { calls, observer } = observed();
    const log = recordingLogger();
    const reports = createJobReports({ observer, successLevel: 'info' });
    const jobLog = log.child({ job: 'assets.process', jobId: 'a1', queue: 'media', attempt: 1 });

    const first = reports.attempt(labels, jobLog);
    await new Promise((r) => setTimeout(r, 20));
    first.completed();
    reports.attempt(labels, jobLog).retried(new Error('flaky'), { retryAt: 'soon' });
    reports.attempt(labels, jobLog).failed(new Error('broken'));

    expect(calls.map(([kind, e]) => [kind, { ...e, seconds: undefined }])).toEqual([
      ['attemptEnded', { ...labels, outcome: 'completed', seconds: undefined }],
      ['attemptEnded', { ...labels, outcome: 'retried', seconds: undefined }],
      ['attemptEnded', { ...labels, outcome: 'failed', seconds: undefined }],
    ]);
    expect((calls[0]![1] as { seconds: number }).seconds).toBeGreaterThanOrEqual(0.015);
    expect(log.lines.map((l) => [l.level, l.msg])).toEqual([
      ['info', 'job completed'],
      ['warn', 'job attempt failed; will retry'],
      ['error', 'job failed after its last attempt'],
    ]);
    // The completion line names the job, its id, queue and attempt, and how long it took.
    expect(log.lines[0]!.fields).toEqual({
      job: 'assets.process',
      jobId: 'a1',
      queue: 'media',
      attempt: 1,
      durationMs: expect.toSatisfy((ms: number) => ms >= 15),
    });
    expect(log.lines[1]!.fields).toMatchObject({ retryAt: 'soon', err: expect.any(Error) });
  });

  it('logs completions at debug when asked (a terminal), warns on a stall and counts failures outside attempts', () => {
    const { calls, observer } = observed();
    const log = recordingLogger();
    const reports = createJobReports({ observer, successLevel: 'debug' });
    reports.attempt(labels, log).completed();
    reports.stalled(labels, log.child({ job: 'assets.process', jobId: 'a2' }), { previousWorker: 'host:1' });
    reports.failedOutside(labels, log, new Error('bad payload'), 'job payload no longer validates');
    expect(log.lines.map((l) => [l.level, l.msg])).toEqual([
      ['debug', 'job completed'],
      ['warn', 'job taken over after its lease expired: the worker running it stopped or froze'],
      ['error', 'job payload no longer validates'],
    ]);
    expect(log.lines[1]!.fields).toEqual({ job: 'assets.process', jobId: 'a2', previousWorker: 'host:1' });
    expect(calls.slice(1)).toEqual([
      ['stalled', labels],
      ['failedOutside', labels],
    ]);
  });
});
