/**
 * SIGINT (Ctrl-C, a cancelled CI job), SIGTERM (a CI timeout) and SIGHUP (a closed terminal)
 * during a run. The first stops the run and keeps what it found: the library's AbortSignal is
 * aborted with the signal's name, and the reports are written. A second ends the process at once.
 * Either way the exit code is 128 + the signal's number (130, 143, 129), as a shell reports a
 * process a signal ended.
 */
import { signalExitCode } from '../report/build.js';
import type { StopSignal } from '../report/types.js';
import { STOP_GRACE_MS, STOP_SIGNALS } from '../api/stop.js';

type Stream = Pick<NodeJS.WriteStream, 'write' | 'isTTY' | 'on'>;

export interface SignalStop {
  /** Aborted, with the signal's name as its reason, by the first signal. */
  readonly signal: AbortSignal;
  /** The first signal, once one came. */
  readonly received: StopSignal | undefined;
  /** Stops listening: the default handling (the process ends) applies again. */
  dispose(): void;
}

export function stopOnSignals(stderr: Stream, streams: readonly Stream[] = [stderr], exit: (code: number) => void = (code) => process.exit(code)): SignalStop {
  const controller = new AbortController();
  let received: StopSignal | undefined;
  const say = (line: string): void => {
    // On a terminal the progress line is rewritten in place: the message takes a line of its own.
    stderr.write(`${stderr.isTTY === true ? '\r\u001b[2K' : ''}petstore-conformance: ${line}\n`);
  };
  const handlers = STOP_SIGNALS.map((name) => {
    const handler = (): void => {
      // A hung-up terminal fails every write: the reports are still written, the console is not.
      if (name === 'SIGHUP') for (const stream of streams) stream.on('error', () => undefined);
      if (received !== undefined) {
        say(`${name} again: quitting at once; no report is written`);
        exit(signalExitCode(name));
        return;
      }
      received = name;
      say(`${name}: stopping the run; nothing new is sent, the requests in flight get ${STOP_GRACE_MS / 1000} s, then the reports are written (a second signal quits at once)`);
      controller.abort(name);
    };
    process.on(name, handler);
    return [name, handler] as const;
  });
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    dispose() {
      for (const [name, handler] of handlers) process.off(name, handler);
    },
  };
}
