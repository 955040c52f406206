/** Where the approvers' page listens and how it is reached (docs/running-agents.md, "A page for approvers"). */
export const DEFAULT_UI_ADDR = '127.0.0.1:8780';

export interface UiSettings {
  host: string;
  port: number;
  /** The page as the approvers reach it (a reverse proxy's address), when the operator set BAREAGENT_UI_URL. */
  publicUrl?: URL;
}

export class UiSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** BAREAGENT_UI_ADDR (`host:port`, `[v6]:port` or `:port`) and BAREAGENT_UI_URL, each checked with a message naming it. */
export function uiSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): UiSettings {
  const addr = env.BAREAGENT_UI_ADDR || DEFAULT_UI_ADDR;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(addr);
  const port = Number(match?.[3]);
  if (!match || port > 65535) throw new UiSettingsError(`BAREAGENT_UI_ADDR must be host:port (such as ${DEFAULT_UI_ADDR}), got "${addr}"`);
  const host = match[1] ?? (match[2] || '127.0.0.1');
  const settings: UiSettings = { host, port };
  if (env.BAREAGENT_UI_URL) settings.publicUrl = publicUrl(env.BAREAGENT_UI_URL);
  return settings;
}

export function publicUrl(value: string): URL {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new UiSettingsError(`BAREAGENT_UI_URL must be an http(s) URL such as https://approve.example.com, got "${value}"`);
  }
  const url = new URL(value);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** The link a webhook carries to a run's page: nothing secret in it (the token stays in the approver's cookie). */
export function runPageUrl(base: URL, workflowId: string): string {
  return new URL(`runs/${encodeURIComponent(workflowId)}`, base).toString();
}
