/**
 * The wrong bearer tokens AUTH-002 sends on every run besides a random key: tokens a careless key
 * lookup accepts. Each is there for a known way servers get it wrong (schemas/requirements.yaml,
 * AUTH-002, says the same). Near misses of the run's own key come from src/http/near-miss.ts.
 */

export const TRAP_TOKENS: readonly { token: string; why: string }[] = [
  // A key table that is a plain JavaScript object: keys[token] and `token in keys` find what
  // every object inherits from Object.prototype.
  { token: 'constructor', why: 'inherited by every JavaScript object: keys[token] finds Object' },
  { token: '__proto__', why: 'inherited by every JavaScript object: keys[token] finds Object.prototype' },
  { token: 'toString', why: 'inherited by every JavaScript object: keys[token] finds a function' },
  { token: 'hasOwnProperty', why: 'inherited by every JavaScript object: keys[token] finds a function' },
  { token: 'valueOf', why: 'inherited by every JavaScript object: keys[token] finds a function' },
  // A valid key read from a setting that is not set, then turned into text.
  { token: 'undefined', why: 'what JavaScript makes of an unset setting in a template string or String()' },
  { token: 'null', why: 'String(null) in JavaScript, String.valueOf(null) in Java: an unset key as text' },
  { token: 'None', why: "str(None) in Python: an unset key as text" },
  // An empty key configured with quotes that were kept (a Docker env-file keeps them), or an empty string serialised as JSON.
  { token: '""', why: 'an empty key that kept its quotes: API_KEY="" in an env-file, JSON.stringify("")' },
];
