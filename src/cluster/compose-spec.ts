import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export const COMPOSE_FILE = path.resolve(__dirname, '..', '..', 'docker-compose.temporal.yml');

interface ComposeService {
  image?: string;
  environment?: Record<string, string | number | boolean | null>;
  entrypoint?: string[];
  command?: string[];
}

/**
 * What the local cluster takes from docker-compose.temporal.yml, so that the two cannot drift:
 * the image versions, the server's environment (the same variables the server image's config
 * template reads), and the one-shot jobs' scripts, run here as they are written there.
 */
export interface ClusterSpec {
  serverVersion: string;
  uiVersion: string;
  postgresVersion: string;
  /** The `-c name=value` settings the compose file starts PostgreSQL with. */
  postgresSettings: Record<string, string>;
  postgresEnv: Record<string, string>;
  /** The address the jobs' scripts use for the server inside Compose's network. */
  composeAddress: string;
  serverEnv: Record<string, string>;
  schemaJob: Job;
  namespaceJob: Job;
  searchAttributesJob: Job;
  uiEnv: Record<string, string>;
}

export interface Job {
  script: string;
  env: Record<string, string>;
}

export function readClusterSpec(file = COMPOSE_FILE, env: NodeJS.ProcessEnv = process.env): ClusterSpec {
  const services = (parse(readFileSync(file, 'utf8')) as { services: Record<string, ComposeService> }).services;
  const service = (name: string): ComposeService => {
    const found = services[name];
    if (!found) throw new Error(`${file} has no service ${name}`);
    return found;
  };
  const environment = (name: string) => resolveEnvironment(service(name).environment ?? {}, env);
  const job = (name: string): Job => ({ script: jobScript(service(name)), env: environment(name) });
  return {
    serverVersion: imageTag(service('temporal').image, 'temporalio/server'),
    uiVersion: imageTag(service('temporal-ui').image, 'temporalio/ui'),
    postgresVersion: imageTag(service('postgresql').image, 'postgres'),
    postgresSettings: postgresSettings(service('postgresql').command ?? []),
    postgresEnv: environment('postgresql'),
    composeAddress: environment('temporal-admin-tools').TEMPORAL_ADDRESS ?? 'temporal:7233',
    serverEnv: environment('temporal'),
    schemaJob: job('temporal-admin-tools'),
    namespaceJob: job('temporal-create-namespace'),
    searchAttributesJob: job('temporal-create-search-attributes'),
    uiEnv: environment('temporal-ui'),
  };
}

export function imageTag(image: string | undefined, repository: string): string {
  const match = new RegExp(`^${repository.replace('/', '\\/')}:v?([0-9][^@\\s]*)`).exec(image ?? '');
  if (!match?.[1]) throw new Error(`expected a ${repository}:<version> image in the compose file, found ${image ?? 'none'}`);
  return match[1];
}

function postgresSettings(command: string[]): Record<string, string> {
  const settings: Record<string, string> = {};
  command.forEach((arg, i) => {
    const [name, value] = arg === '-c' ? (command[i + 1] ?? '').split('=') : [];
    if (name && value !== undefined) settings[name] = value;
  });
  return settings;
}

/** A job's `sh -c` script, with Compose's `$$` escapes turned back into `$`. */
function jobScript(service: ComposeService): string {
  const [shell, flag] = service.entrypoint ?? [];
  if (shell !== '/bin/sh' || flag !== '-c' || !service.command?.[0]) {
    throw new Error('expected a one-shot job of the form entrypoint: ["/bin/sh", "-c"], command: [<script>]');
  }
  return service.command[0].replace(/\$\$/g, '$');
}

/** Compose's `${NAME:-default}` and `${NAME}` interpolation, from the given environment. */
export function resolveEnvironment(raw: Record<string, string | number | boolean | null>, env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(raw).map(([key, value]) => [
      key,
      String(value ?? '').replace(/\$\{(\w+)(?::?-([^}]*))?\}/g, (_, name: string, fallback?: string) => env[name] || fallback || ''),
    ]),
  );
}
