import { DelayedError, type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import {
  callOnFailed,
  createJobRegistry,
  driverSettings,
  errorOf,
  type Registered,
  runAttempt,
  within,
} from './registry.ts';
import {
  type EnqueueOptions,
  type JobInfo,
  JobDefinitionError,
  JobInterruptedError,
  type JobRef,
  type JobStatus,
  type JobSystem,
  type JobSystemOptions,
  type QueueStats,
  QueueUnavailableError,
} from './types.ts';

/**
 * The scaled-mode driver: BullMQ 5 on Redis, one Queue and (in worker processes) one Worker per
 * queue name. Dedupe is BullMQ's custom job id, retries are its attempts with exponential backoff,
 * schedules are job schedulers (one per key, shared through Redis, so one run per period across
 * processes). Timeouts, payload checks and the failure hook live in the processor wrapper, so the
 * behaviour matches the in-process driver (one contract suite covers both).
 */
export interface BullmqJobSystemOptions extends JobSystemOptions {
  redisUrl: string;
  /** Redis key prefix; tests use one per suite so they never share keys. Default `atelier`. */
  prefix?: string;
}

/** BullMQ's reason for a job that stalled (its worker died) more often than maxStalledCount. */
const STALLED_TOO_OFTEN = 'job stalled more than allowable limit';

export function createBullmqJobSystem(o: BullmqJobSystemOptions): JobSystem {
  const registry = createJobRegistry();
  const { log, leaseMs, graceMs, retention, concurrency, reports } = driverSettings(o);
  const prefix = o.prefix ?? 'atelier';
  const enqueueTimeoutMs = o.enqueueTimeoutMs ?? 5000;

  // Producers fail fast when Redis is down (the create call errors instead of hanging); workers wait.
  const producer = new Redis(o.redisUrl, { maxRetriesPerRequest: 2 });
  producer.on('error', (err) => log.warn({ err }, 'redis (job producer) error'));
  let consumer: Redis | undefined;
  const queues = new Map<string, Queue>();
  const workers: Worker[] = [];
  const active = new Map<string, AbortController>();
  let started = false;
  let stopped: Promise<void> | undefined;

  function queue(name: string): Queue {
    let q = queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: producer, prefix });
      q.on('error', (err) => log.warn({ err, queue: name }, 'job queue error'));
      queues.set(name, q);
    }
    return q;
  }

  const jobOptions = (def: Registered) => ({
    attempts: def.attempts,
    backoff: { type: 'exponential', delay: def.backoffMs },
    removeOnComplete: { age: Math.ceil(retention.completedMs / 1000) },
    removeOnFail: { age: Math.ceil(retention.failedMs / 1000) },
  });

  async function processJob(job: Job, token?: string): Promise<void> {
    const jobId = job.id ?? '';
    const def = registry.find(job.name);
    if (!def) {
      // Another version of the code (a rolling deploy) knows it: leave it for that one, like the
      // in-process driver, which never claims a name it has no handler for.
      log.warn({ job: job.name, jobId: job.id }, 'no handler for this job in this process; leaving it for another');
      await job.moveToDelayed(Date.now() + Math.min(leaseMs, 5000), token);
      throw new DelayedError();
    }
    const attempt = job.attemptsMade + 1;
    const maxAttempts = job.opts.attempts ?? 1;
    const labels = { queue: def.queue, job: def.name };
    const jobLog = log.child({ job: job.name, jobId, queue: def.queue, attempt });
    let payload: unknown;
    try {
      payload = registry.payload(def, job.data);
    } catch (e) {
      const err = errorOf(e);
      reports.failedOutside(labels, jobLog, err, 'job payload no longer validates; failed without retry');
      throw new UnrecoverableError(err.message);
    }
    const stop = new AbortController();
    active.set(jobId, stop);
    const report = reports.attempt(labels, jobLog);
    try {
      await runAttempt(def, payload, { jobId, attempt, maxAttempts, log: jobLog }, stop.signal);
    } catch (e) {
      if (stop.signal.aborted) {
        // Interrupted by stop(): back to the queue at once, without counting the attempt.
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      const err = errorOf(e);
      if (attempt >= maxAttempts) {
        report.failed(err);
        await callOnFailed(def, payload, err, { jobId, log: jobLog });
      } else {
        report.retried(err);
      }
      throw err;
    } finally {
      active.delete(jobId);
    }
    report.completed();
  }

  /** A job that failed without reaching the processor's last attempt (it stalled too often). */
  async function failedOutside(job: Job | undefined, err: Error): Promise<void> {
    if (!job || err.message !== STALLED_TOO_OFTEN) return;
    const def = registry.find(job.name);
    if (!def) return;
    const jobLog = log.child({ job: job.name, jobId: job.id, queue: def.queue });
    reports.failedOutside(
      { queue: def.queue, job: def.name },
      jobLog,
      err,
      'job failed: its workers stopped while running it',
    );
    await callOnFailed(def, registry.payload(def, job.data), err, { jobId: job.id ?? '', log: jobLog });
  }

  /** This worker's stalled check put a job whose lock lapsed back in the queue. */
  async function stalled(queueName: string, jobId: string): Promise<void> {
    const job = await queue(queueName).getJob(jobId);
    const name = job?.name ?? 'unknown';
    reports.stalled({ queue: queueName, job: name }, log.child({ job: name, jobId, queue: queueName }), {
      attemptsMade: job?.attemptsMade,
    });
  }

  return {
    driver: 'bullmq',
    register(...defs) {
      registry.register(defs);
    },
    async enqueue(job: string | JobRef, payload: unknown, opts: EnqueueOptions = {}) {
      const { def, data, id, delay } = registry.prepareEnqueue(job, payload, opts);
      // Bounded: with Redis gone, BullMQ waits for its connection without end. A job added after
      // the bound (Redis came back) finds its row undone or already swept; its handler returns.
      let bound: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        bound = setTimeout(
          () => reject(new QueueUnavailableError(def.queue, `no answer within ${enqueueTimeoutMs} ms`)),
          enqueueTimeoutMs,
        );
      });
      const adding = queue(def.queue).add(def.name, data, {
        ...jobOptions(def),
        jobId: id,
        ...(delay > 0 ? { delay } : {}),
      });
      adding.catch(() => undefined); // settles after the bound too: not an unhandled rejection
      try {
        const added = await Promise.race([adding, timedOut]);
        return added.id ?? '';
      } catch (err) {
        if (err instanceof QueueUnavailableError) throw err;
        throw new QueueUnavailableError(def.queue, (err as Error).message);
      } finally {
        clearTimeout(bound);
      }
    },
    async schedule(name, payload, opts) {
      const { def, key, data } = registry.prepareSchedule(name, payload, opts);
      await queue(def.queue).upsertJobScheduler(key, { every: opts.everyMs }, { name, data, opts: jobOptions(def) });
    },
    async startWorkers(opts = {}) {
      if (started || stopped)
        throw new JobDefinitionError('workers were already started on this job system (or it stopped)');
      const names = registry.queuesToStart(opts.queues);
      started = true;
      registry.seal();
      consumer = new Redis(o.redisUrl, { maxRetriesPerRequest: null });
      consumer.on('error', (err) => log.warn({ err }, 'redis (job worker) error'));
      for (const name of names) {
        const w = new Worker(name, processJob, {
          connection: consumer,
          prefix,
          concurrency: concurrency(name),
          lockDuration: leaseMs,
          stalledInterval: leaseMs,
          maxStalledCount: 1,
        });
        w.on('error', (err) => log.warn({ err, queue: name }, 'job worker error'));
        w.on('stalled', (jobId) => {
          stalled(name, jobId).catch((err) => log.warn({ err, jobId, queue: name }, 'could not read a stalled job'));
        });
        w.on('failed', (job, err) => {
          failedOutside(job, err).catch((e) => log.error({ err: e }, 'failure hook of a stalled job threw'));
        });
        workers.push(w);
      }
      await Promise.all(workers.map((w) => w.waitUntilReady()));
      log.info({ queues: names }, 'job workers started');
    },
    async get(jobId): Promise<JobInfo | undefined> {
      for (const name of registry.queues()) {
        const job = await queue(name).getJob(jobId);
        if (!job) continue;
        const state = await job.getState();
        const status: JobStatus =
          state === 'active' ? 'running' : state === 'completed' || state === 'failed' ? state : 'queued';
        return {
          id: jobId,
          name: job.name,
          queue: name,
          status,
          ...(job.failedReason ? { lastError: job.failedReason } : {}),
        };
      }
      return undefined;
    },
    async queueStats(): Promise<QueueStats[]> {
      return Promise.all(registry.queues().map((name) => statsOf(name, Date.now())));
    },
    stop() {
      stopped ??= shutdown();
      return stopped;
    },
  };

  /**
   * Depth: waiting, prioritized and delayed jobs (a retry's backoff is delayed). Wait of the
   * oldest: the job at the head of the wait list (the next one taken), since it became due: its
   * add time plus its delay, or the start of its previous attempt when it has run before (a
   * retry or a stalled job); for those it counts that attempt's run and backoff too, so it errs long.
   */
  async function statsOf(name: string, now: number): Promise<QueueStats> {
    const q = queue(name);
    const [counts, [head]] = await Promise.all([
      q.getJobCounts('wait', 'prioritized', 'delayed', 'paused'),
      q.getWaiting(0, 0),
    ]);
    const depth = Object.values(counts).reduce((a, b) => a + b, 0);
    const dueSince = head ? Math.max(head.timestamp + (head.opts.delay ?? 0), head.processedOn ?? 0) : now;
    return { queue: name, depth, oldestWaitSeconds: Math.max(0, (now - dueSince) / 1000) };
  }

  async function shutdown(): Promise<void> {
    // close() stops fetching at once and resolves when the running jobs have finished.
    const closing = Promise.all(workers.map((w) => w.close()));
    if (!(await within(closing, graceMs))) {
      // Grace is over: abort the rest; each goes back to the queue (processJob) and settles.
      log.warn({ jobs: [...active.keys()] }, 'stopped with jobs still running; they go back to the queue');
      for (const c of active.values()) c.abort(new JobInterruptedError());
      await within(closing, 5000);
    }
    await consumer?.quit().catch(() => consumer?.disconnect());
    if (producer.status !== 'ready') {
      // Redis never answered (or is away): end the connection before closing the queues. A
      // queue's close() drops its error listener, and BullMQ rethrows the connection's last error
      // when it ends later, which would surface as an unhandled rejection of the process.
      producer.disconnect();
      await within(Promise.all([...queues.values()].map((q) => q.waitUntilReady().catch(() => {}))), 1000);
    }
    await Promise.all([...queues.values()].map((q) => q.close().catch(() => {})));
    await producer.quit().catch(() => producer.disconnect());
  }
}
