/**
 * The main thread's word to the suite's worker that the run is stopped (the caller's abort, a
 * signal to the process): a BroadcastChannel between the two threads of the one process, named
 * per run (RunConfig.stopChannel). vitest's own cancellation would skip every test not yet run,
 * the cross-cutting ones too, and lose what the run found; stopping the client instead lets the
 * remaining tests end at once (every send refused, every wait cut short) and judge what was seen.
 *
 * A message posted before the worker listens is lost, so the worker says when it listens and the
 * main side answers with the stop it already has.
 */
import { BroadcastChannel } from 'node:worker_threads';
import type { HaltReason } from '../http/errors.js';

export interface StopMessage {
  kind: 'stop';
  reason: Extract<HaltReason, 'aborted' | 'interrupted'>;
  /** What every send refused from now on says: the reason a test stopped by it reports. */
  message: string;
  /** How long the requests in flight get to be answered before they are cut off. */
  graceMs: number;
}

type ChannelMessage = StopMessage | { kind: 'listening' };

function dataOf(event: unknown): ChannelMessage | undefined {
  const data: unknown = (event as { data?: unknown }).data;
  if (typeof data !== 'object' || data === null || !('kind' in data)) return undefined;
  return data as ChannelMessage;
}

/** Worker side: calls `onStop` when the main side stops the run (before or after this call). */
export function listenForStop(name: string, onStop: (stop: StopMessage) => void): void {
  const channel = new BroadcastChannel(name);
  // The channel must not keep the worker alive: vitest ends it when the run is over.
  channel.unref();
  channel.onmessage = (event) => {
    const data = dataOf(event);
    if (data?.kind === 'stop') onStop(data);
  };
  channel.postMessage({ kind: 'listening' } satisfies ChannelMessage);
}

export interface StopSender {
  stop(message: StopMessage): void;
  close(): void;
}

/** Main side, opened before the worker starts: `stop` reaches a worker listening now or later. */
export function openStopChannel(name: string): StopSender {
  const channel = new BroadcastChannel(name);
  channel.unref();
  let sent: StopMessage | undefined;
  channel.onmessage = (event) => {
    if (dataOf(event)?.kind === 'listening' && sent !== undefined) channel.postMessage(sent);
  };
  return {
    stop(message) {
      sent = message;
      channel.postMessage(message);
    },
    close: () => channel.close(),
  };
}
