/**
 * earl.jsonld: the W3C Evaluation and Report Language (EARL 1.0) in JSON-LD, so conformance
 * results can be aggregated with other tools' (implementation reports, dashboards).
 * https://www.w3.org/TR/EARL10-Schema/
 */
import type { Report, RequirementResult, SentenceCoverage } from '../types.js';
import { clip, isWarning, sectionHeading, shortReason } from './common.js';
import { describePlan } from '../../plans.js';

const MAX_DESCRIPTION = 2_000;

type Outcome = 'earl:passed' | 'earl:failed' | 'earl:cantTell' | 'earl:untested';

/** Inconclusive (tried, could not tell) is cantTell; not exercised (the user's choice) is untested. */
export function earlOutcome(r: RequirementResult): Outcome {
  switch (r.status) {
    case 'pass':
      return 'earl:passed';
    case 'fail':
      return 'earl:failed';
    case 'inconclusive':
      return 'earl:cantTell';
    case 'not-exercised':
      return 'earl:untested';
  }
}

export function requirementUrn(id: string): string {
  return `urn:petstore-conformance:req:${encodeURIComponent(id)}`;
}

/** The target's base URL names the subject when it is an absolute URL; otherwise a run-scoped URN. */
function subjectId(report: Report): string {
  try {
    return new URL(report.target.baseUrl).href;
  } catch {
    return `urn:petstore-conformance:subject:${encodeURIComponent(report.runId)}`;
  }
}

export function sentenceUrn(specVersion: string, sentenceId: string): string {
  return `urn:petstore-conformance:spec:${encodeURIComponent(specVersion)}:${encodeURIComponent(sentenceId)}`;
}

/**
 * The spec's sentences a requirement checks, as the criteria its test requirement is derived from
 * (dct:source): each an earl:TestCriterion carrying the sentence verbatim. Absent when the report
 * predates the specification map.
 */
function criteria(report: Report, r: RequirementResult): object {
  const sentences = (report.specCoverage ?? []).filter((s: SentenceCoverage) => s.requirements?.some((c) => c.id === r.id) === true);
  if (sentences.length === 0) return {};
  return {
    'dct:source': sentences.map((s) => ({
      '@id': sentenceUrn(report.spec.version, s.id),
      '@type': 'earl:TestCriterion',
      'dct:identifier': s.id,
      'dct:description': s.text,
      'dct:isPartOf': `${report.spec.title} ${report.spec.version}, ${sectionHeading(s.section)}`,
    })),
  };
}

function description(r: RequirementResult): string {
  const reason = shortReason(r);
  const text = isWarning(r) ? `warning (should-requirement): ${reason}` : reason;
  return clip(text === '' ? `${r.status}: ${r.statement}` : text, MAX_DESCRIPTION);
}

export function renderEarl(report: Report): string {
  const assertor = `urn:petstore-conformance:tool:${encodeURIComponent(report.tool.name)}:${encodeURIComponent(report.tool.version)}`;
  const subject = subjectId(report);
  const date = { '@value': report.startedAt, '@type': 'xsd:dateTime' };
  const document = {
    '@context': {
      earl: 'http://www.w3.org/ns/earl#',
      dct: 'http://purl.org/dc/terms/',
      foaf: 'http://xmlns.com/foaf/0.1/',
      doap: 'http://usefulinc.com/ns/doap#',
      xsd: 'http://www.w3.org/2001/XMLSchema#',
      // Our own terms: EARL has no words for a spec section or a must/should level.
      pc: 'urn:petstore-conformance:vocab#',
    },
    '@graph': [
      {
        '@id': assertor,
        '@type': ['earl:Assertor', 'earl:Software', 'doap:Project'],
        'foaf:name': report.tool.name,
        'doap:name': report.tool.name,
        'dct:hasVersion': report.tool.version,
        'doap:release': { 'doap:revision': report.tool.version },
      },
      {
        '@id': subject,
        '@type': 'earl:TestSubject',
        'dct:title': report.target.baseUrl,
        'dct:description': `Pet Store Service at ${report.target.baseUrl}${report.target.embedded ? ' (the embedded reference server)' : ''}${report.target.plan === undefined ? '' : `, key on the plan ${describePlan(report.target.plan)}`}`,
      },
      {
        // EARL has no node for a whole run; ours carries the verdict line every other format shows.
        '@id': `urn:petstore-conformance:run:${encodeURIComponent(report.runId)}`,
        '@type': 'pc:Run',
        'pc:verdict': report.verdict,
        'pc:complete': report.complete,
        ...(report.keyUse === undefined ? {} : { 'pc:keyMode': report.keyUse.mode }),
        ...(report.keyUse?.otherConsumption === undefined ? {} : { 'pc:otherConsumption': report.keyUse.otherConsumption }),
        'dct:description': report.verdictLine,
        'dct:date': date,
        'earl:subject': { '@id': subject },
      },
      ...report.requirements.map((r) => ({
        '@type': 'earl:Assertion',
        'earl:assertedBy': { '@id': assertor },
        'earl:subject': { '@id': subject },
        'earl:mode': { '@id': 'earl:automatic' },
        'earl:test': {
          '@id': requirementUrn(r.id),
          '@type': 'earl:TestRequirement',
          'dct:identifier': r.id,
          'dct:title': r.title,
          'dct:description': r.statement,
          'dct:isPartOf': `${report.spec.title} ${report.spec.version}, ${sectionHeading(r.section)}`,
          'pc:section': r.section,
          'pc:level': r.level,
          ...criteria(report, r),
        },
        'earl:result': {
          '@type': 'earl:TestResult',
          'earl:outcome': { '@id': earlOutcome(r) },
          'dct:description': description(r),
          'dct:date': date,
        },
      })),
    ],
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
