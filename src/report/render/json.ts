/**
 * report.json's text: indented JSON, except the timeline's requests and waits, one to a line. A
 * run of a day's quota has thousands of them: one line each keeps the file about half the size of
 * one number per line, and reads like the run's log.
 */
import type { Report, RunTimeline } from '../types.js';

const rows = (items: readonly object[]): string => (items.length === 0 ? '[]' : `[\n${items.map((item) => `      ${JSON.stringify(item)}`).join(',\n')}\n    ]`);

function timelineText(timeline: RunTimeline): string {
  const { responses, waits, ...head } = timeline;
  const fields = Object.entries(head).map(([key, value]) => `    ${JSON.stringify(key)}: ${JSON.stringify(value)}`);
  return `{\n${[...fields, `    "responses": ${rows(responses)}`, `    "waits": ${rows(waits)}`].join(',\n')}\n  }`;
}

export function renderJson(report: Report): string {
  const { timeline, ...rest } = report;
  const text = JSON.stringify(rest, null, 2);
  if (timeline === undefined) return `${text}\n`;
  // The indented object ends with "\n}": the timeline goes in as its last member.
  return `${text.slice(0, -2)},\n  "timeline": ${timelineText(timeline)}\n}\n`;
}
