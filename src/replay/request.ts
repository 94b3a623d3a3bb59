/**
 * From a piece of report evidence back to the request that was sent: method, path and query
 * relative to the base URL, headers, body and the same kind of credential. The report holds no
 * key; it is put back only where the run's key stood (auth mode 'key', or a malformed header whose
 * template says where), the way the evidence's curl line does it; a near miss of the key (auth
 * mode 'near-miss') is made again from the key by the kind its template names.
 *
 * Anything that cannot be rebuilt exactly (an excerpted body, the key elsewhere in the request,
 * a report written before the evidence carried these fields and not derivable) is refused with
 * the reason, so replay says "could not tell" instead of sending something else.
 */
import type { HttpMethod, SendRequest } from '../http/client.js';
import type { AuthMode } from '../http/exchange.js';
import { authHeaderFrom } from '../http/prepare.js';
import { REDACTED } from '../http/redact.js';
import { GATEWAY_VALUE } from '../http/gateway-headers.js';
import type { ExchangeEvidence } from '../report/types.js';
import { storeBreakingInputs } from '../arbitraries/store-breaking.js';

export type Rebuilt = { ok: true; request: SendRequest } | { ok: false; reason: string };

const METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] satisfies HttpMethod[];
/** What evidence.ts appends to a body it cut (reports written before `bodyTruncated` existed). */
const EXCERPT_TAIL = /… \(\d+ more characters\)$/;

/** Reports from before `target` was recorded: the URL minus the run's base URL. */
function targetOf(ev: ExchangeEvidence, baseUrl: string): string | undefined {
  if (ev.request.target !== undefined) return ev.request.target;
  return ev.request.url.startsWith(`${baseUrl}/`) ? ev.request.url.slice(baseUrl.length) : undefined;
}

/** Reports from before `auth` was recorded: only the two unambiguous cases can be told apart. */
function authModeOf(ev: ExchangeEvidence): AuthMode | undefined {
  if (ev.request.auth !== undefined) return ev.request.auth;
  const header = ev.request.headers['authorization'];
  if (header === undefined) return 'none';
  return header === `Bearer ${REDACTED}` ? 'key' : undefined;
}

function authOf(ev: ExchangeEvidence, mode: AuthMode, apiKey: string): { auth: NonNullable<SendRequest['auth']> } | { refused: string } {
  const recorded = ev.request.headers['authorization'];
  const template = ev.request.authTemplate;
  if (mode === 'none') return recorded === undefined ? { auth: 'none' } : { refused: 'it is recorded without credentials but carries an Authorization header' };
  if (mode === 'near-miss') {
    // Never recorded, only described: rebuilt from the run's key by its kind.
    return template?.encoding === 'near-miss' ? { auth: { mode, miss: template.miss } } : { refused: 'the report does not say which near miss of the key it carried' };
  }
  if (template !== undefined && (mode === 'key' || mode === 'malformed')) return { auth: { mode, header: authHeaderFrom(template, apiKey) } };
  if (mode === 'key') return { auth: 'key' };
  if (recorded === undefined) return { auth: { mode, header: undefined } };
  if (recorded.includes(REDACTED)) return { refused: 'its Authorization header held the key in a form the report does not record' };
  // A wrong key or a malformed header without the run's key: sent again exactly as recorded.
  return { auth: { mode, header: recorded } };
}

export function rebuildRequest(ev: ExchangeEvidence, context: { baseUrl: string; apiKey: string; purpose: string }): Rebuilt {
  const refuse = (why: string): Rebuilt => ({ ok: false, reason: `exchange #${ev.seq} cannot be re-sent: ${why}` });
  const { method, body, headers } = ev.request;
  if (!METHODS.includes(method)) return refuse(`method ${method} is not one the client sends`);
  const target = targetOf(ev, context.baseUrl);
  if (target === undefined) return refuse('the report does not say its path relative to the base URL');
  if (target.includes(REDACTED)) return refuse('its path held the API key');
  if (body !== undefined && (ev.request.bodyTruncated === true || (ev.request.target === undefined && EXCERPT_TAIL.test(body)))) {
    return refuse('the report keeps only an excerpt of its body');
  }
  if (body?.includes(REDACTED) === true) return refuse('its body held the API key');
  // The exact bytes of a body that was not UTF-8; `body` only shows them.
  const sent = ev.request.bodyBase64 === undefined ? body : Buffer.from(ev.request.bodyBase64, 'base64');
  const risky = sent === undefined ? [] : storeBreakingInputs(sent);
  if (risky.length > 0) {
    return refuse(`its body holds an input that can leave a store broken for every client (${risky.join(', ')}): replay re-runs CREATE-005, which sends it again only with --risk-breaking-store`);
  }
  const mode = authModeOf(ev);
  if (mode === undefined) return refuse('the report does not say which credential it carried');
  const credential = authOf(ev, mode, context.apiKey);
  if ('refused' in credential) return refuse(credential.refused);
  // A gateway's header is recorded without its value: the replay's client sends the replay's own.
  const extra = Object.entries(headers).filter(([name, value]) => name !== 'authorization' && value !== GATEWAY_VALUE);
  if (extra.some(([, value]) => value.includes(REDACTED))) return refuse('a header held the API key');
  return {
    ok: true,
    request: {
      method: method as HttpMethod,
      // The target is already encoded as sent; the preparer appends a path as given.
      path: target,
      headers: Object.fromEntries(extra),
      ...(sent === undefined ? {} : { body: sent }),
      auth: credential.auth,
      purpose: context.purpose,
    },
  };
}
