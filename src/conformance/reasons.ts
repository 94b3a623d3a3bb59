/** The reason recorded for a requirement the user left out with --only (renderers recognise it). */
export const DESELECTED = 'deselected by --only';
