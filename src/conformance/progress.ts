/**
 * Live progress from the worker to the terminal. The worker's console is forwarded to the CLI's
 * reporter as it happens (vitest's onUserConsoleLog), so a tagged line is the cheapest live
 * channel: it carries waits on the rate limit (for a countdown) and the request count, and, when
 * the run keeps its exchange log (--reporter har), each exchange as it completes.
 */
import type { LoggedExchange, RunTimeline } from '../report/types.js';

export const PROGRESS_TAG = '\u0000petstore-conformance-progress ';

export type ProgressEvent =
  | { kind: 'wait'; ms: number; reason: string; requests: number }
  | { kind: 'requests'; requests: number }
  /**
   * A line worth printing as it happens: the cost of an opt-in check and its ETA (always), the
   * requests a burst spent (terminal only: a CI log has it in the report's observations).
   */
  | { kind: 'note'; message: string; requests: number; always?: boolean };

/**
 * What the worker's tagged lines carry: progress, or one exchange of the log (for the reporter,
 * never shown as progress). Sent as each exchange completes, so an aborted run's log holds every
 * answered request, and nothing waits for the last test. The run's timeline (Report.timeline)
 * comes once, after the last test: it is placed on the clock the whole run's Date headers show.
 */
export type WorkerEvent = ProgressEvent | { kind: 'exchange'; exchange: LoggedExchange } | { kind: 'timeline'; timeline: RunTimeline };

export function encodeProgress(event: WorkerEvent): string {
  return `${PROGRESS_TAG}${JSON.stringify(event)}`;
}

/** Prints a note for the terminal from the worker. */
export function progressNote(message: string, requests: number, always = false): void {
  console.info(encodeProgress({ kind: 'note', message, requests, ...(always ? { always } : {}) }));
}

/**
 * The events a console log carries, and the ordinary output around them. vitest batches the
 * lines a worker writes in one tick into one log, so a log is split into lines before decoding:
 * read whole, a note followed at once by a request's count was lost.
 */
export function decodeProgress(content: string): { events: WorkerEvent[]; output: string } {
  const events: WorkerEvent[] = [];
  const rest: string[] = [];
  for (const line of content.split('\n')) {
    const event = decodeLine(line);
    if (event === undefined) rest.push(line);
    else events.push(event);
  }
  const output = rest.join('\n');
  return { events, output: events.length > 0 && output.trim() === '' ? '' : output };
}

function decodeLine(line: string): WorkerEvent | undefined {
  if (!line.startsWith(PROGRESS_TAG)) return undefined;
  try {
    return JSON.parse(line.slice(PROGRESS_TAG.length).trim()) as WorkerEvent;
  } catch {
    return undefined;
  }
}
