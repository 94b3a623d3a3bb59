/**
 * The run's send policy (src/http/send-policy.ts): the limit probe first, then the exact retry a
 * request asked for, then the refill doubt's wait; every other send as the pacer times it.
 */
import type { SendPolicy } from '../http/send-policy.js';
import { exactRetryAfterHold } from './exact-retry.js';
import type { LimitProbe } from './limit-probe.js';
import type { RefillDoubt } from './refill-doubt.js';

export function runSendPolicy(probe: LimitProbe | undefined, doubt?: RefillDoubt): SendPolicy {
  return {
    time(send, pacing) {
      const probing = probe?.time(send, pacing);
      if (probing !== undefined) return probing;
      if (send.exactRetryAfter) return { hold: exactRetryAfterHold(send, pacing) };
      return doubt?.time(send, pacing);
    },
  };
}
