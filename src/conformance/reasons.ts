/** The reason recorded for a requirement the user left out with --only (renderers recognise it). */
export const DESELECTED = 'deselected by --only';

/** The reason recorded in a replay's report for a requirement that did not fail in the replayed report. */
export const NOT_REPLAYED = 'not replayed: it did not fail in the replayed report';
