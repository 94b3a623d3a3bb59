/**
 * Bodies that may create a pet name it MARKER_SLOT…; the probe fills the slot with a marker of its
 * own, one per request, so a stored pet always says which request it came from. Generated inputs
 * keep the slot, so a shrunk counterexample reads the same in every run.
 */
export const MARKER_SLOT = '<marker>';

/** The text as sent: the marker slot filled with the request's own marker. */
export function withMarker(text: string, marker: string): string {
  return text.replaceAll(MARKER_SLOT, marker);
}
