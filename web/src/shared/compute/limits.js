// The compute's own limit that a setting's range names (settings.js's `workers`), in a module of
// its own so that the settings table can name it without bringing the compute into a bundle.

/** The most Workers a Pool runs (the page's own thread only draws). */
export const MAX_WORKERS = 8;
