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

/** A console stream, as much of one as this needs (process.stdout and process.stderr are). */
export interface ConsoleStream {
  write(text: string): unknown;
  isTTY?: boolean;
  on(event: 'error', handler: () => void): unknown;
}

export interface SignalStop {
  /** Aborted, with the signal's name as its reason, by the first signal. */
  readonly signal: AbortSignal;
  /** The first signal, once one came. */
  readonly received: StopSignal | undefined;
  /** Stops listening: the default handling (the process ends) applies again. */
  dispose(): void;
}

/** Where the signals come from and how the process ends: the process itself, unless a test stands in. */
export interface SignalSource {
  on(name: StopSignal, handler: () => void): unknown;
  off(name: StopSignal, handler: () => void): unknown;
  exit(code: number): void;
}

const PROCESS: SignalSource = {
  on: (name, handler) => process.on(name, handler),
  off: (name, handler) => process.off(name, handler),
  exit: (code) => process.exit(code),
};

/** `streams`: every console stream, whose errors a hung-up terminal makes harmless. */
export function stopOnSignals(stderr: ConsoleStream, streams: readonly ConsoleStream[] = [stderr], source: SignalSource = PROCESS): SignalStop {
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
        source.exit(signalExitCode(name));
        return;
      }
      received = name;
      say(`${name}: stopping the run; nothing new is sent, the requests in flight get ${STOP_GRACE_MS / 1000} s, then the reports are written (a second signal quits at once)`);
      controller.abort(name);
    };
    source.on(name, handler);
    return [name, handler] as const;
  });
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    dispose() {
      for (const [name, handler] of handlers) source.off(name, handler);
    },
  };
}
