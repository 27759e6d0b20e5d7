import { EventEmitter } from 'node:events';

/**
 * Resource changes: what long-poll waiters (`Prefer: wait`) and webhook deliveries hear about.
 * A module publishes a change after it moved a pollable resource (a status transition, a
 * variation finishing); `publish` then (1) runs the sinks once, where the change happened (the
 * webhook sink enqueues deliveries), and (2) broadcasts it to every process's listeners (in
 * process when embedded; over Redis pub/sub in the scaled mode, so a change on a worker wakes
 * the API node holding the request). Best effort: `publish` never throws (polling still works).
 */
export const RESOURCE_KINDS = [
  'asset',
  'extraction',
  'brand_dna_version',
  'scene_forge',
  'environment_generation',
  'scene_prompt_enhancement',
  'video_group',
  'video_prompt_enhancement',
] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

export interface ResourceChange {
  kind: ResourceKind;
  id: string;
  orgId: string;
  brandId?: string;
  /** The resource's status after the change. */
  status: string;
  /** Whether that status is terminal (completed, failed, ready, complete, canceled). */
  terminal: boolean;
  at: string;
}

export type ChangeSink = (change: ResourceChange) => Promise<void> | void;
export type ChangeListener = (change: ResourceChange) => void;

export interface Changes {
  publish(change: ResourceChange): Promise<void>;
  /** Hears every change of the deployment; returns the unsubscribe function. */
  listen(listener: ChangeListener): () => void;
  /** Runs once per change, in the publishing process (webhooks). */
  addSink(sink: ChangeSink): void;
  close(): Promise<void>;
}

export interface ChangeTransport {
  /** Sends a change to every process (including this one, through `onMessage`). */
  broadcast(change: ResourceChange): Promise<void>;
  onMessage(handler: (change: ResourceChange) => void): void;
  close(): Promise<void>;
}

/** The in-process transport of the embedded mode. */
export function localTransport(): ChangeTransport {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    async broadcast(change) {
      emitter.emit('change', change);
    },
    onMessage(handler) {
      emitter.on('change', handler);
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

export function createChanges(
  transport: ChangeTransport = localTransport(),
  log?: { warn(obj: object, msg?: string): void },
): Changes {
  const listeners = new Set<ChangeListener>();
  const sinks: ChangeSink[] = [];
  transport.onMessage((change) => {
    for (const l of listeners) {
      try {
        l(change);
      } catch (err) {
        log?.warn({ err: (err as Error).message }, 'change listener failed');
      }
    }
  });
  return {
    async publish(change) {
      for (const sink of sinks) {
        try {
          await sink(change);
        } catch (err) {
          log?.warn({ err: (err as Error).message, kind: change.kind, id: change.id }, 'change sink failed');
        }
      }
      try {
        await transport.broadcast(change);
      } catch (err) {
        log?.warn({ err: (err as Error).message }, 'change broadcast failed');
      }
    },
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    addSink(sink) {
      sinks.push(sink);
    },
    async close() {
      listeners.clear();
      await transport.close();
    },
  };
}
