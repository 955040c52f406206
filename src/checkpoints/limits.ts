/** What enters a snapshot besides the rules: the operator's caps and exclude list (worker environment). */
export interface SnapshotLimits {
  maxFileBytes: number;
  maxTotalBytes: number;
  /** gitignore patterns that win over the workspace's own `.gitignore` (its `!` lines included). */
  exclude: string[];
}

/** Trees nobody wants back and that are rebuilt from a lock file; the operator adds more. */
export const DEFAULT_EXCLUDE = ['node_modules', '.venv', '__pycache__'];

function bytes(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number of bytes, got "${raw}"`);
  return value;
}

export function snapshotLimits(env = process.env): SnapshotLimits {
  const extra = (env.BAREAGENT_CHECKPOINT_EXCLUDE ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  return {
    maxFileBytes: bytes('BAREAGENT_CHECKPOINT_MAX_FILE_BYTES', env.BAREAGENT_CHECKPOINT_MAX_FILE_BYTES, 10 * 1024 * 1024),
    maxTotalBytes: bytes('BAREAGENT_CHECKPOINT_MAX_TOTAL_BYTES', env.BAREAGENT_CHECKPOINT_MAX_TOTAL_BYTES, 1024 * 1024 * 1024),
    exclude: [...DEFAULT_EXCLUDE, ...extra],
  };
}

/** A deny path of a read_file rule: `.env` exactly, or `secrets/*` for everything under a prefix. */
export function isDenied(file: string, deny: readonly string[]): boolean {
  return deny.some((rule) => (rule.endsWith('*') ? file.startsWith(rule.slice(0, -1)) : file === rule));
}
