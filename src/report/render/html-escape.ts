/** Escaping for report.html and its parts: every piece of report text goes through `esc`, every fragment id through `anchor`. */
import { visible } from './common.js';

export function esc(text: string): string {
  return visible(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Fragment ids from report text: only safe characters, so they need no escaping anywhere. */
export function anchor(prefix: string, value: string): string {
  return `${prefix}-${value.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`;
}
