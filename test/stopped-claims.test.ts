/**
 * A stopped run claims only what it saw (issue 47): a requirement judged on every response
 * (cross-cutting) cannot pass on the few responses before a stop, and a property that tried no
 * case cannot pass at all. JUnit and diff read the status, so they follow.
 */
import { describe, expect, it } from 'vitest';
import { runConformance } from '../src/index.js';
import { referenceBehaviour, startReferenceServer } from '../fixtures/reference-server/index.js';
import { SHORT_WINDOWS } from '../fixtures/variants/index.js';
import { renderJunit } from '../src/report/render/junit.js';
import { diffReports } from '../src/report/diff.js';
import { reportSchemaErrors } from './support/report-schema.js';

const KEY = 'pc-stopped-claims-key-2b9e';
const CROSS_CUTTING = ['MEDIA-001', 'PET-002', 'RATE-001', 'RATE-002', 'RATE-003', 'RATE-004', 'RATE-008'];

describe('a run stopped after its first response', () => {
  it('passes nothing a full run judges on more exchanges than it got; JUnit and diff follow', async () => {
    const controller = new AbortController();
    // Stopped by the server itself as its first response goes out: the same moment however busy the machine.
    const server = await startReferenceServer({
      ...SHORT_WINDOWS,
      keys: { [KEY]: 'free' },
      behaviour: {
        finalize: (response, ctx) => {
          if (!controller.signal.aborted) controller.abort('SIGINT');
          return referenceBehaviour.finalize(response, ctx);
        },
      },
    });
    try {
      const report = await runConformance({ baseUrl: server.baseUrl, apiKey: KEY, plan: 'free', signal: controller.signal, seed: 7 });
      expect(reportSchemaErrors(report)).toEqual([]);
      expect(report.halted?.reason).toBe('interrupted');
      // A full run judges each of these on dozens of responses; the stopped run got a handful at most.
      expect(report.requests).toBeLessThan(10);
      const passed = report.requirements.filter((r) => r.status === 'pass').map((r) => `${r.id} (${r.restsOn?.exchanges ?? '?'} exchanges)`);
      expect(passed).toEqual([]);
      for (const id of CROSS_CUTTING) {
        const r = report.requirements.find((x) => x.id === id);
        expect(r?.status, id).toBe('inconclusive');
        expect(r?.reason, id).toBe('the run was stopped (SIGINT) before this was judged');
        expect(report.halted?.unjudged, id).toContain(id);
      }
      const junit = renderJunit(report);
      for (const id of CROSS_CUTTING) {
        const testcase = new RegExp(`<testcase[^>]*name="${id}[^"]*"[^>]*/>`);
        expect(junit, `${id} is not a bare (passed) testcase`).not.toMatch(testcase);
      }
      const diff = diffReports(report, report);
      expect(JSON.stringify(diff)).not.toMatch(/"pass"/);
    } finally {
      await server.close();
    }
  });
});
