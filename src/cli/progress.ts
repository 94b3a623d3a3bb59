/**
 * Live progress on stderr while the suite runs: on a terminal, one line rewritten in place (the
 * requirement being tested, requests sent, a countdown while waiting on the rate limit); in a CI
 * log, only the waits worth explaining, one line each.
 */
import type { ProgressListener } from '../../reporters/compliance.js';

/** Shorter waits pass unmentioned in a CI log. */
const LOGGED_WAIT_MS = 2_000;

export function createProgress(stream: Pick<NodeJS.WriteStream, 'write' | 'columns'>, interactive: boolean): ProgressListener & { stop(): void } {
  let current = '';
  let requests = 0;
  let waitUntil = 0;
  let waitReason = '';
  let timer: NodeJS.Timeout | undefined;

  const draw = (): void => {
    if (!interactive) return;
    const left = Math.ceil((waitUntil - Date.now()) / 1000);
    const waiting = left > 0 ? `  waiting ${left} s (${waitReason})` : '';
    const line = `  ${current}  ${requests} requests${waiting}`;
    const width = (stream.columns ?? 0) > 20 ? stream.columns : 100;
    stream.write(`\r\u001b[2K${line.length > width - 1 ? `${line.slice(0, width - 2)}…` : line}`);
  };

  return {
    onTestStart(requirement) {
      current = requirement;
      draw();
    },
    onProgress(event) {
      requests = Math.max(requests, event.requests);
      if (event.kind === 'note' && interactive) stream.write(`\r\u001b[2K${event.message}\n`);
      if (event.kind === 'note' && !interactive && event.always === true) stream.write(`${event.message}\n`);
      if (event.kind === 'wait') {
        waitUntil = Date.now() + event.ms;
        waitReason = event.reason;
        if (!interactive && event.ms >= LOGGED_WAIT_MS) {
          stream.write(`waiting ${Math.ceil(event.ms / 1000)} s on the target's rate limit (${event.reason})\n`);
        }
        if (interactive && timer === undefined) {
          timer = setInterval(draw, 1000);
          timer.unref();
        }
      }
      draw();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      if (interactive) stream.write('\r\u001b[2K');
    },
  };
}
