/**
 * A mutant's tests, several at once: `items` run at most `lanes` at a time, in their order, until
 * one's result is decisive (a kill, a hang, no target); then the runs still going are aborted and
 * no more start. A survivor then costs about its longest test rather than the sum of them all (the
 * runs mostly wait on rate-limit windows, not on the CPU), and a kill still ends the mutant's runs
 * as soon as it comes. Which test decides may differ from one run to the next; whether the mutant
 * is killed does not, since a survivor passes every test that reaches it.
 */
export interface FirstDecisive<T, R> {
  /** The first decisive result, with the item that gave it; none when every item ran and none was. */
  decided?: { item: T; result: R };
  /** How many items were started (the decisive one and those aborted included). */
  started: number;
}

export async function firstDecisive<T, R>(
  items: readonly T[],
  lanes: number,
  run: (item: T, signal: AbortSignal) => Promise<R>,
  decisive: (result: R) => boolean,
): Promise<FirstDecisive<T, R>> {
  const controller = new AbortController();
  let next = 0;
  let decided: { item: T; result: R } | undefined;
  const lane = async (): Promise<void> => {
    while (decided === undefined && next < items.length) {
      const item = items[next++] as T;
      const result = await run(item, controller.signal);
      if (decided === undefined && decisive(result)) {
        decided = { item, result };
        controller.abort();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, lane));
  } finally {
    // A lane that threw leaves the others nothing to finish for.
    controller.abort();
  }
  return { ...(decided === undefined ? {} : { decided }), started: next };
}
