import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../../src/common/search-attributes';

/** The subset of the Compose file format these checks read. */
interface ComposeService {
  image?: string;
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | number | { target: number; published?: string | number })[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  entrypoint?: string | string[];
  command?: string | string[];
  healthcheck?: { test?: string | string[] };
  volumes?: (string | { source?: string; target: string })[];
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

const COMPOSE_PATH = path.join(__dirname, '..', '..', 'docker-compose.temporal.yml');
const text = readFileSync(COMPOSE_PATH, 'utf8');
const compose = parse(text) as ComposeFile;
const services = compose.services;

const REQUIRED_SERVICES = [
  'postgresql',
  'temporal',
  'temporal-admin-tools',
  'temporal-ui',
  'temporal-create-search-attributes',
];

function service(name: string): ComposeService {
  const found = services[name];
  if (!found) throw new Error(`service ${name} is missing from docker-compose.temporal.yml`);
  return found;
}

/** `environment` as a map, whichever of the two Compose forms the file uses. */
function env(name: string): Record<string, string> {
  const raw = service(name).environment ?? {};
  if (Array.isArray(raw)) {
    return Object.fromEntries(
      raw.map((entry) => {
        const at = entry.indexOf('=');
        return at < 0 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(raw).map(([key, value]) => [key, value === null ? '' : String(value)]));
}

function dependsOn(name: string): string[] {
  const raw = service(name).depends_on ?? [];
  return Array.isArray(raw) ? raw : Object.keys(raw);
}

/** Published `host:container` pairs, from the short ("8233:8080", "127.0.0.1:7233:7233") or long form. */
function publishedPorts(name: string): { host: number; container: number }[] {
  return (service(name).ports ?? []).map((port) => {
    if (typeof port === 'object') return { host: Number(port.published), container: port.target };
    const parts = String(port).split('/')[0]!.split(':');
    const container = Number(parts[parts.length - 1]);
    const host = parts.length >= 2 ? Number(parts[parts.length - 2]) : container;
    return { host, container };
  });
}

/** The shell script a one-shot job runs, with Compose's `$$` escapes turned back into `$`. */
function script(name: string): string {
  const { entrypoint, command } = service(name);
  const parts = [entrypoint ?? [], command ?? []].flat();
  return parts.join('\n').replace(/\$\$/g, '$');
}

describe('docker-compose.temporal.yml', () => {
  it('parses and defines the cluster services', () => {
    expect(compose).toBeTruthy();
    for (const name of REQUIRED_SERVICES) expect(Object.keys(services)).toContain(name);
  });

  it('uses the official images', () => {
    expect(service('postgresql').image).toMatch(/^postgres:/);
    expect(service('temporal').image).toMatch(/^temporalio\/(server|auto-setup):/);
    expect(service('temporal-admin-tools').image).toMatch(/^temporalio\/admin-tools:/);
    expect(service('temporal-create-search-attributes').image).toMatch(/^temporalio\/admin-tools:/);
    expect(service('temporal-ui').image).toMatch(/^temporalio\/ui:/);
  });

  it('pins every image to a concrete version tag', () => {
    for (const [name, svc] of Object.entries(services)) {
      const image = svc.image;
      expect({ name, image }).toEqual({ name, image: expect.any(String) });
      const match = /^([^@\s]+?)(?::([^:/@\s]+))?(?:@sha256:[0-9a-f]{64})?$/.exec(image!);
      expect({ name, image, parsed: !!match }).toEqual({ name, image, parsed: true });
      const tag = match![2];
      expect({ name, image, tag }).toEqual({ name, image, tag: expect.any(String) });
      expect({ name, tag }).not.toEqual({ name, tag: 'latest' });
      // A version: starts with major.minor (e.g. 16.13, 1.29.2, 1.29.1-tctl-1.18.4-cli-1.5.0).
      expect({ name, tag }).toEqual({ name, tag: expect.stringMatching(/^v?\d+\.\d+/) });
      // Not left to the environment either.
      expect({ name, image }).toEqual({ name, image: expect.not.stringContaining('$') });
    }
  });

  it('keeps the Temporal images on one server line', () => {
    const minor = (image: string | undefined) => /:v?(\d+\.\d+)/.exec(image ?? '')?.[1];
    const serverLine = minor(service('temporal').image);
    expect(serverLine).toBeDefined();
    for (const [name, svc] of Object.entries(services)) {
      if (svc.image?.startsWith('temporalio/admin-tools:')) expect({ name, line: minor(svc.image) }).toEqual({ name, line: serverLine });
    }
  });

  it('runs PostgreSQL with a named volume and a healthcheck', () => {
    const postgres = service('postgresql');
    const volumes = postgres.volumes ?? [];
    const dataVolume = volumes
      .map((volume) => (typeof volume === 'string' ? volume.split(':')[0] : volume.source))
      .find((source) => source && compose.volumes && source in compose.volumes);
    expect(dataVolume).toBeDefined();
    expect(JSON.stringify(postgres.healthcheck?.test ?? '')).toMatch(/pg_isready/);
  });

  it('stores Temporal in the postgres service', () => {
    const temporalEnv = env('temporal');
    expect(temporalEnv.DB).toMatch(/^postgres/);
    expect(temporalEnv.POSTGRES_SEEDS).toBe('postgresql');
    expect(temporalEnv.POSTGRES_USER).toBe(env('postgresql').POSTGRES_USER);
    expect(temporalEnv.POSTGRES_PWD).toBe(env('postgresql').POSTGRES_PASSWORD);
    expect(dependsOn('temporal')).toContain('postgresql');
  });

  it('sets up the schema with admin-tools before the server starts, when the server image does not', () => {
    if (service('temporal').image?.startsWith('temporalio/auto-setup:')) return;
    expect(dependsOn('temporal')).toContain('temporal-admin-tools');
    const job = script('temporal-admin-tools');
    expect(job).toMatch(/temporal-sql-tool/);
    expect(job).toMatch(/setup-schema/);
    expect(job).toMatch(/update-schema/);
    expect(env('temporal-admin-tools').SQL_HOST ?? job).toMatch(/postgresql/);
  });

  it('publishes gRPC on 7233 and the Web UI on 8233', () => {
    expect(publishedPorts('temporal')).toContainEqual({ host: 7233, container: 7233 });
    expect(publishedPorts('temporal-ui')).toContainEqual({ host: 8233, container: 8080 });
  });

  it('registers exactly the five BareAgent search attributes in namespace default', () => {
    const job = script('temporal-create-search-attributes');
    const created = [...job.matchAll(/temporal operator search-attribute create([^\n]*)/g)].map((m) => m[1]!);
    const registered = created.map((args) => {
      const name = /--name[ =](\S+)/.exec(args)?.[1];
      const type = /--type[ =](\S+)/.exec(args)?.[1];
      expect(args).toMatch(/--address[ =]temporal:7233\b/);
      expect(args).toMatch(/--namespace[ =]default\b/);
      return [name, type];
    });
    const expected = {
      BareAgentStatus: 'Keyword',
      BareAgentWaitingForHuman: 'Bool',
      BareAgentIterations: 'Int',
      BareAgentModel: 'Keyword',
      BareAgentProvider: 'Keyword',
      BareAgentForkedFrom: 'Keyword',
    };
    expect(registered).toHaveLength(6);
    expect(Object.fromEntries(registered)).toEqual(expected);
    expect(expected).toEqual(SEARCH_ATTRIBUTES);
  });

  it('waits for the server before registering, and tolerates attributes that already exist', () => {
    const name = 'temporal-create-search-attributes';
    expect(dependsOn(name)).toContain('temporal');
    expect(script(name)).toMatch(/already exists/);
  });

  it('points the Web UI at temporal:7233 and takes a codec endpoint', () => {
    const uiEnv = env('temporal-ui');
    expect(uiEnv.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(service('temporal-ui').environment).toMatchObject({
      TEMPORAL_CODEC_ENDPOINT: '${BAREAGENT_CODEC_ENDPOINT:-}',
    });
    expect(uiEnv.TEMPORAL_CORS_ORIGINS).toMatch(/8233/);
    expect(text).toMatch(/bareagent codec-server/);
    expect(dependsOn('temporal-ui')).toContain('temporal');
  });

  it('tells workers and clients which address to use', () => {
    expect(text).toMatch(/TEMPORAL_ADDRESS=127\.0\.0\.1:7233/);
  });
});
