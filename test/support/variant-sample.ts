/** What a vitest config may provide to test/variants.test.ts. */
declare module 'vitest' {
  export interface ProvidedContext {
    /** Names of the variants to run instead of the whole table (`npm run test:quick`). */
    variantSample?: readonly string[];
  }
}

export {};
