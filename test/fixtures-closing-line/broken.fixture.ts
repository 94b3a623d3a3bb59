// Fails to load: no test of it ever runs, yet the run must not read as "0 failed".
import { it } from 'vitest';

if (process.env['PC_FIXTURE'] !== 'loads') throw new Error('this file fails to load');

it('never runs', () => {});
