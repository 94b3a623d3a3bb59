/**
 * The run's send policy (src/http/send-policy.ts): the limit probe first, then the exact retry a
 * request asked for; every other send as the pacer times it.
 */
import type { SendPolicy } from '../http/send-policy.js';
import { exactRetryAfterHold } from './exact-retry.js';
import type { LimitProbe } from './limit-probe.js';

export function runSendPolicy(probe: LimitProbe | undefined): SendPolicy {
  return {
    time(send, pacing) {
      const probing = probe?.time(send, pacing);
      if (probing !== undefined) return probing;
      return send.exactRetryAfter ? { hold: exactRetryAfterHold(send, pacing) } : undefined;
    },
  };
}
