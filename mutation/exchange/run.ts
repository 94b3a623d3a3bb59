/**
 * One conformance run through the exchange layer: the variant's server started as the self-test
 * starts it (variantServerOptions, its first request held to a phase of its window as the
 * stability bench places it), the layer in front of it applying one mutation, and the built CLI
 * pointed at the layer, judged by its report.json.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceServer } from '../../fixtures/reference-server/index.js';
import { variantServerOptions, type Variant } from '../../fixtures/variants/index.js';
import type { Report } from '../../src/report/types.js';
import { packagePath } from '../../src/interface/package-root.js';
import { startLayer, type Mutation } from './layer.js';

/** The built CLI, whether this module runs from dist/ or from source under vitest. */
const CLI = packagePath('dist', 'src', 'cli', 'main.js');

export interface LayerRun {
  offsetMs: number | undefined;
  seed: number;
  /** Failing requirement ids with their sections. */
  failing: { id: string; section: string; message: string }[];
  verdict: string;
  /** Exchanges the mutation changed. */
  applied: number;
  exchanges: number;
  error?: string;
}

export interface LayerRunOptions {
  offsetMs?: number;
  seed: number;
}

/** The run's CLI process, with the bench's environment (no colour, the key in PETSTORE_API_KEY). */
function runCli(args: string[], key: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', PETSTORE_API_KEY: key }, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

export async function runThroughLayer(variant: Variant | undefined, mutation: Mutation, options: LayerRunOptions): Promise<LayerRun> {
  const server = await startReferenceServer(variantServerOptions(variant, options.offsetMs === undefined ? {} : { startAtPhaseMs: options.offsetMs }));
  const layer = await startLayer(server.baseUrl, mutation);
  const dir = await mkdtemp(join(tmpdir(), 'pc-exchange-mutant-'));
  const base = { offsetMs: options.offsetMs, seed: options.seed };
  try {
    const plan = variant?.plan ?? 'free';
    const planArgs = variant?.omitPlan === true ? [] : ['--plan', plan];
    const args = ['--base-url', layer.baseUrl, ...planArgs, '--seed', String(options.seed), '--report-dir', dir, '--reporter', 'json', ...(variant?.args ?? [])];
    await runCli(args, server.keys[plan]);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
    const failing = report.requirements
      .filter((r) => r.status === 'fail')
      .map((r) => ({ id: r.id, section: r.section, message: (r.evidence.find((e) => e.kind === 'violation')?.message ?? r.reason ?? '').slice(0, 240) }));
    return { ...base, failing, verdict: report.verdict, applied: layer.applied, exchanges: layer.exchanges };
  } catch (error) {
    return { ...base, failing: [], verdict: 'none', applied: layer.applied, exchanges: layer.exchanges, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await layer.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}
