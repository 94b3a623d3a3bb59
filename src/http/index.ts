export { createClient, authTemplateOf } from './client.js';
export type { ClientOptions, ClientStats, ConformanceClient, CustomAuth, HttpMethod, RateLimitState, SendRequest } from './client.js';
export { BudgetExhaustedError, ClientError, RunHaltedError, TransportError, isClientError } from './errors.js';
export type { HaltReason, TransportErrorKind } from './errors.js';
export type { AuthMode, AuthTemplate, Exchange, RecordedRequest, RecordedResponse, WholeBody } from './exchange.js';
export { API_KEY_VARIABLE, toCurl } from './curl.js';
export { createRedactor, redact, REDACTED } from './redact.js';
export { parseHttpDate, parseHttpDateAnyForm, parseRetryAfter } from './retry-after.js';
export type { HttpDateForm, RetryAfter } from './retry-after.js';
