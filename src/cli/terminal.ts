/**
 * What the terminal shows at the end of a run: requirements by section with their verdicts,
 * the failures with their first evidence, the verdict line and where the reports are.
 * Colour only on a TTY and never with NO_COLOR.
 */
import type { Report, RequirementResult, RequirementStatus } from '../report/types.js';
import { DESELECTED, NOT_REPLAYED } from '../conformance/reasons.js';
import { replayBanner } from '../report/replay-banner.js';
import { sequenceText, STATUS_WORD } from '../report/render/common.js';
import { keyUseLine } from '../report/key-use.js';
import { requestsPhrase } from '../report/requests-phrase.js';
import { commonCausesOf } from '../catalog.js';
import { BAD_KEY_MESSAGE } from '../session/preflight.js';

export interface Style {
  colour: boolean;
}

export function styleFor(stream: Pick<NodeJS.WriteStream, 'isTTY'>, env: NodeJS.ProcessEnv): Style {
  return { colour: stream.isTTY === true && (env['NO_COLOR'] ?? '') === '' && env['TERM'] !== 'dumb' };
}

const CODES: Record<RequirementStatus, string> = { pass: '32', fail: '31', inconclusive: '33', 'not-exercised': '90' };
const VERDICT_CODES: Record<Report['verdict'], string> = { conforms: CODES.pass, 'does-not-conform': CODES.fail, 'not-verified': CODES.inconclusive };

function paint(style: Style, code: string, text: string): string {
  return style.colour ? `\u001b[${code}m${text}\u001b[0m` : text;
}

function label(r: RequirementResult): RequirementStatus | 'warn' {
  return r.status === 'fail' && r.level === 'should' ? 'warn' : r.status;
}

export function renderSummary(report: Report, reportPaths: readonly string[], style: Style): string {
  const lines: string[] = [];
  let section = '';
  const left = (reason: string): number => report.requirements.filter((r) => r.status === 'not-exercised' && r.reason === reason).length;
  const deselected = left(DESELECTED);
  const notReplayed = left(NOT_REPLAYED);
  const banner = replayBanner(report);
  if (banner !== undefined) lines.push(banner);
  for (const r of report.requirements.filter((x) => !(x.status === 'not-exercised' && (x.reason === DESELECTED || x.reason === NOT_REPLAYED)))) {
    if (r.section !== section) {
      section = r.section;
      lines.push(`  § ${section}`);
    }
    const l = label(r);
    const text = l === 'warn' ? 'WARN' : STATUS_WORD[l];
    const note = r.reason === undefined ? '' : `  (${r.reason})`;
    lines.push(`    ${paint(style, CODES[r.status], text.padEnd(13))} ${r.id.padEnd(11)} ${r.title}${note}`);
  }
  if (deselected > 0) lines.push(`  (${deselected} requirements deselected by --only)`);
  if (notReplayed > 0) lines.push(`  (${notReplayed} requirements not replayed: they did not fail in the replayed report)`);
  const failures = report.requirements.filter((r) => r.status === 'fail');
  if (failures.length > 0) {
    lines.push('', 'Failures:');
    for (const r of failures) lines.push(...failureLines(r));
  }
  const s = report.summary;
  lines.push(
    '',
    paint(style, VERDICT_CODES[report.verdict], report.verdictLine),
    `${s.pass} pass, ${s.fail} fail (${s.warnings} warnings), ${s.inconclusive} inconclusive, ${s.notExercised} not exercised; complete: ${report.complete}; ${requestsPhrase(report)} in ${(report.durationMs / 1000).toFixed(1)} s; seed ${report.seed}`,
  );
  if (report.keyUse !== undefined && !report.target.embedded) lines.push(keyUseLine(report.keyUse));
  for (const o of report.observations) if (o.notable === true) lines.push(`Note (${o.requirement}): ${o.message}`);
  for (const e of report.runErrors) lines.push(`run error: ${e}`);
  if (report.createdPetIds.length > 0) lines.push(`created pets (name prefix pc-${report.runId}-): ${report.createdPetIds.length}`);
  for (const p of reportPaths) lines.push(`report: ${p}`);
  return `${lines.join('\n')}\n`;
}

/** Violations shown with their exchange on the console; the rest are counted (summary.md and report.json list them). */
const SHOWN_WITH_EXCHANGE = 2;

/** "Received X / Expected Y" as two lines a reader can compare; any other message as it is. */
function receivedExpected(message: string): string[] {
  const match = /^(?:(?<label>[^:]+): )?(?<lead>.*?)Received (?<got>.+?) \/ Expected (?<want>.+)$/s.exec(message);
  const groups = match?.groups;
  if (groups === undefined) return [message];
  const head = `${groups['label'] === undefined ? '' : `${groups['label']}: `}${groups['lead'] ?? ''}`.trim();
  return [...(head === '' ? [] : [head]), `  received: ${groups['got'] ?? ''}`, `  expected: ${groups['want'] ?? ''}`];
}

/** A failing requirement as the console shows it: what was received and expected, what was sent, a curl line, and a common cause's fix. */
function failureLines(r: RequirementResult): string[] {
  const lines = [`  ${r.id} (${r.level}, § ${r.section}) ${r.title}`];
  const violations = r.evidence.filter((e) => e.kind === 'violation');
  const summary = violations.find((v) => v.exchange === undefined);
  if (summary !== undefined) lines.push(`    ${summary.message}`);
  const withExchange = violations.filter((v) => v.exchange !== undefined);
  for (const v of withExchange.slice(0, SHOWN_WITH_EXCHANGE)) {
    const ex = v.exchange;
    if (ex === undefined) continue;
    lines.push(...receivedExpected(v.message).map((line) => `    ${line}`));
    lines.push(`      sent:      ${ex.request.method} ${ex.request.url}`);
    lines.push(`      answered:  ${ex.response === undefined ? ex.error?.code ?? 'no response' : `${ex.response.status} ${ex.response.body.slice(0, 160)}`}`);
    lines.push(`      reproduce: ${ex.curl}`);
  }
  const more = withExchange.length - SHOWN_WITH_EXCHANGE;
  if (more > 0) lines.push(`    … and ${more} more (summary.md and report.json list each)`);
  if (summary === undefined && withExchange.length === 0 && violations[0] !== undefined) lines.push(`    ${violations[0].message}`);
  for (const c of commonCausesOf(r.id, violations.map((v) => v.message))) lines.push(`    common cause: ${c.cause}`, `    how stacks fix it: ${c.fix}`);
  if (r.property !== undefined) lines.push(`    shrunk input: ${r.property.counterexample}  (seed ${r.property.seed}, path ${r.property.path})`);
  if (r.sequence !== undefined) lines.push(...sequenceText(r.sequence).map((line) => `    ${line}`));
  return lines;
}

const HALT_HEADLINES: Record<NonNullable<Report['halted']>['reason'], string> = {
  transport: 'target stopped answering',
  throttled: 'target kept answering 429',
  'wait-too-long': 'target asked for a longer wait than --max-wait',
  deadline: 'run deadline passed',
  aborted: 'run aborted',
  interrupted: 'run stopped',
  // The user's mistakes: their message alone is the line.
  'bad-key': '',
  'wrong-base-url': '',
  unreachable: '',
};

/** What to do about a halt whose message does not say it already (a bad key's and a wrong base URL's do). */
function haltFix(halt: NonNullable<Report['halted']>, message: string): string | undefined {
  if (halt.reason === 'unreachable') {
    if (message.includes('--ca') || message.includes('--client-cert') || message.includes('credentials')) return undefined;
    if (message.startsWith('proxy ')) return 'check the proxy URL and that the proxy is running and reachable from here';
    if (/^the proxy .* refused to open a tunnel/.test(message)) return 'ask for the target to be let through the proxy, or list it in NO_PROXY to go direct';
    if (/^the proxy .* could not reach/.test(message)) return 'check --base-url, and that the proxy can reach the server';
    if (message.endsWith('use http://')) return undefined;
    if (message.startsWith('TLS error')) return message.includes('the IP address') ? 'the server needs a certificate whose subjectAltName lists this IP address' : 'the server needs a certificate valid for this host name';
    return 'check --base-url and that the server is running and reachable from here';
  }
  if (halt.reason === 'transport') return 'check the server is up; a slow one may need a higher --timeout';
  return undefined;
}

/**
 * The one stderr line of a halted run, so a CI log says why at a glance (the exit code alone
 * cannot tell "stopped answering" from "could not start"), with the fix when there is one. A run
 * stopped by a signal names its partial report (`reportJson`, report.json's path) instead.
 */
export function haltLine(report: Report, reportJson?: string, keySource?: string): string | undefined {
  const halt = report.halted;
  if (halt === undefined) return undefined;
  if (halt.signal !== undefined) {
    const judged = report.summary.pass + report.summary.fail;
    const where = reportJson === undefined ? 'see report.json' : `the partial report is ${reportJson}`;
    return `run stopped by ${halt.signal}: ${judged} requirements judged, ${halt.unjudged.length} not (nothing more was sent); ${where}`;
  }
  const said = (halt.message.split('\n')[0] ?? '').trim();
  // The worker names the environment variable; the key may have come from elsewhere.
  const message = halt.reason === 'bad-key' && keySource !== undefined ? said.replace(BAD_KEY_MESSAGE, BAD_KEY_MESSAGE.replace('PETSTORE_API_KEY', keySource)) : said;
  const fix = haltFix(halt, message);
  const reason = fix === undefined ? message : `${message}; ${fix}`;
  if (HALT_HEADLINES[halt.reason] === '') return reason;
  return `${HALT_HEADLINES[halt.reason]}: ${reason} (${halt.unjudged.length} requirements could not be judged; see report.json)`;
}

/**
 * A run that halted before it judged anything: every row of the table would repeat the halt's
 * reason, so the console says it once (haltLine) and where the full table is.
 */
export function nothingJudged(report: Report): boolean {
  return report.halted !== undefined && report.runErrors.length === 0 && !report.requirements.some((r) => r.status === 'pass' || r.status === 'fail');
}

/** The line after haltLine when nothing was judged. */
export function nothingJudgedLine(report: Report, reportPaths: readonly string[], style: Style): string {
  const verdict = paint(style, VERDICT_CODES[report.verdict], 'NOT VERIFIED');
  const requests = `${report.requests} request${report.requests === 1 ? '' : 's'}`;
  return `${verdict}: nothing was judged (${requests} sent); every requirement, with the reason, in ${reportPaths.join(', ')}\n`;
}
