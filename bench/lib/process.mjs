// Whole processes, timed from outside: spawn to exit on the wall clock, and the CPU time of the
// process and its children (Linux: the cutime and cstime of /proc/self/stat, which grow by every
// descendant a parent has waited for; elsewhere unknown).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The processes timed() started that have not ended yet: an interrupted bench stops them. */
export const running = new Set();

/** Clock ticks per second of /proc/<pid>/stat on Linux (USER_HZ, 100 on every common kernel). */
const TICKS_PER_SECOND = 100;

/** CPU ms of the children this process has waited for, or undefined where /proc does not tell. */
function childrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis start at field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Runs `command` to its end. Resolves to its exit code (null when a signal ended it), its wall ms
 * and the CPU ms of it and all its descendants (NaN where unknown). One at a time: the children's
 * CPU is read as the difference across this run.
 */
export function timed(command, args, options = {}) {
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore', ...options });
    running.add(child);
    child.on('error', (error) => {
      running.delete(child);
      reject(error);
    });
    child.on('close', (code) => {
      running.delete(child);
      const wallMs = performance.now() - started;
      const cpuAfter = childrenCpuMs();
      resolve({ code, wallMs, cpuMs: cpuBefore === undefined || cpuAfter === undefined ? NaN : cpuAfter - cpuBefore, pid: child.pid });
    });
  });
}

export function median(values) {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
