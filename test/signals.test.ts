/**
 * The CLI's signal handling (src/cli/signals.ts) on a stand-in for the process: the first signal
 * aborts the run with its name and says so in one line; a second ends the process at once with
 * 128 + its number; a hung-up terminal's write errors are made harmless.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { stopOnSignals, type ConsoleStream, type SignalSource } from '../src/cli/signals.js';
import type { StopSignal } from '../src/report/types.js';

function standIn(): SignalSource & { send(name: StopSignal): void; exits: number[]; listening(): number } {
  const events = new EventEmitter();
  const exits: number[] = [];
  return {
    on: (name, handler) => events.on(name, handler),
    off: (name, handler) => events.off(name, handler),
    exit: (code) => void exits.push(code),
    send: (name) => void events.emit(name),
    exits,
    listening: () => events.listenerCount('SIGINT') + events.listenerCount('SIGTERM') + events.listenerCount('SIGHUP'),
  };
}

function console(tty = false): ConsoleStream & { lines: string[]; errorHandlers: unknown[] } {
  const lines: string[] = [];
  const errorHandlers: unknown[] = [];
  return { write: (text) => lines.push(text), isTTY: tty, on: (_event, handler) => errorHandlers.push(handler), lines, errorHandlers };
}

describe('stopOnSignals', () => {
  it.each([
    ['SIGINT', 'SIGTERM', 143],
    ['SIGTERM', 'SIGINT', 130],
    ['SIGINT', 'SIGINT', 130],
  ] as const)('%s stops the run (the abort reason is its name); %s after it ends the process at once with %i', (first, second, code) => {
    const source = standIn();
    const stderr = console();
    const stop = stopOnSignals(stderr, [stderr], source);
    expect(stop.signal.aborted).toBe(false);
    source.send(first);
    expect(stop.signal.aborted).toBe(true);
    expect(stop.signal.reason).toBe(first);
    expect(stop.received).toBe(first);
    expect(source.exits).toEqual([]);
    expect(stderr.lines).toEqual([`petstore-conformance: ${first}: stopping the run; nothing new is sent, the requests in flight get 2 s, then the reports are written (a second signal quits at once)\n`]);
    source.send(second);
    expect(source.exits).toEqual([code]);
    expect(stderr.lines[1]).toBe(`petstore-conformance: ${second} again: quitting at once; no report is written\n`);
    // The first signal's stop is not changed by the second.
    expect(stop.received).toBe(first);
  });

  it('SIGHUP stops the run too (exit 129 on a second), and the console streams ignore the errors of a terminal that is gone', () => {
    const source = standIn();
    const stdout = console();
    const stderr = console();
    const stop = stopOnSignals(stderr, [stdout, stderr], source);
    source.send('SIGHUP');
    expect(stop.signal.reason).toBe('SIGHUP');
    expect(stdout.errorHandlers).toHaveLength(1);
    expect(stderr.errorHandlers).toHaveLength(1);
    source.send('SIGHUP');
    expect(source.exits).toEqual([129]);
  });

  it('on a terminal, clears the progress line before its own; dispose leaves the signals to their default', () => {
    const source = standIn();
    const stderr = console(true);
    const stop = stopOnSignals(stderr, [stderr], source);
    expect(source.listening()).toBe(3);
    source.send('SIGINT');
    expect(stderr.lines[0]?.startsWith('\r\u001b[2Kpetstore-conformance: SIGINT: stopping the run')).toBe(true);
    stop.dispose();
    expect(source.listening()).toBe(0);
  });
});
