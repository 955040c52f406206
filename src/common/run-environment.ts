/**
 * What a new run learns about where it works, read once by the worker that holds the workspace
 * and recorded in the history (and carried across continue-as-new): the default system prompt is
 * built from it, so a replay sends the same prompt without reading anything again.
 */
export interface RunEnvironment {
  /** The workspace's real path on the tool worker. */
  workspace: string;
  /** The tool worker's OS, e.g. `Linux 6.1.0 (x64)`. */
  os: string;
  /** A short listing of the workspace, one entry a line, directories ending in `/`; names escaped. */
  listing: string;
  /** Entries left out of `listing` by its caps. */
  omitted: number;
  /** The run's start date (workflow time, YYYY-MM-DD), set by the workflow. */
  date?: string;
}

/** The listing's caps: a repository with thousands of files still costs the prompt a few hundred tokens. */
export const MAX_LISTING_ENTRIES = 60;
export const MAX_LISTING_DEPTH = 2;
export const MAX_LISTED_NAME_CHARS = 80;
