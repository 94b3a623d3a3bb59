// Busy processes beside a command (the load bench): Node processes that each keep a core busy.
// They are always stopped: by stop(), when this process exits or is interrupted (SIGINT, SIGTERM,
// SIGHUP), and by themselves when this process is gone, however it ended (even killed outright):
// their IPC channel to it closes, and they spin in short slices so that they notice.
import { spawn } from 'node:child_process';

const SPIN = `
process.on('disconnect', () => process.exit(0));
const spin = () => {
  const end = Date.now() + 20;
  while (Date.now() < end);
  setImmediate(spin);
};
spin();
`;

const alive = (child) => child.exitCode === null && child.signalCode === null;

export function startBusy(count) {
  const children = Array.from({ length: count }, () => spawn(process.execPath, ['-e', SPIN], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] }));
  const kill = () => {
    for (const child of children) if (alive(child)) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  return {
    pids: children.map((child) => child.pid),
    async stop() {
      const exited = children.filter(alive).map((child) => new Promise((resolve) => child.once('exit', resolve)));
      kill();
      await Promise.all(exited);
    },
  };
}
