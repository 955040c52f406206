import { readClusterSpec, resolveEnvironment, imageTag } from '../../src/cluster/compose-spec';
import { portsAround } from '../../src/cluster/server-ports';
import { localScript } from '../../src/cluster/setup-jobs';
import { SEARCH_ATTRIBUTES } from '../../src/common/search-attributes';

/** `npm run cluster` runs what docker-compose.temporal.yml describes: these are the parts it takes from it. */
describe('the local cluster, read from docker-compose.temporal.yml', () => {
  const spec = readClusterSpec(undefined, {});
  const place = { composeAddress: spec.composeAddress, address: '127.0.0.1:7300', schemaDir: '/cache/temporal-server/schema' };

  it('builds the server and UI of the images the compose file names', () => {
    expect(spec.serverVersion).toMatch(/^1\.29\.\d+$/);
    expect(spec.uiVersion).toMatch(/^2\.\d+\.\d+$/);
    expect(Number(spec.postgresVersion.split('.')[0])).toBeGreaterThanOrEqual(12);
  });

  it('gives the server the compose environment: PostgreSQL 12 plugin, both databases, the shard count', () => {
    expect(spec.serverEnv).toMatchObject({ DB: 'postgres12', DBNAME: 'temporal', VISIBILITY_DBNAME: 'temporal_visibility', POSTGRES_USER: 'temporal', POSTGRES_PWD: 'temporal' });
    expect(Number(spec.serverEnv.NUM_HISTORY_SHARDS)).toBeGreaterThan(1);
    expect(spec.serverEnv.DYNAMIC_CONFIG_FILE_PATH).toBeUndefined(); // the image's own (empty) dynamic config, as here
    expect(spec.postgresSettings).toEqual({ max_connections: '200' });
    expect(spec.postgresEnv).toMatchObject({ POSTGRES_USER: spec.serverEnv.POSTGRES_USER, POSTGRES_PASSWORD: spec.serverEnv.POSTGRES_PWD });
  });

  it('runs the compose jobs here with only the server address and the schema folder replaced', () => {
    expect(spec.composeAddress).toBe('temporal:7233');
    const schema = localScript(spec.schemaJob, place);
    expect(spec.schemaJob.script).toContain('/etc/temporal/schema/postgresql/v12');
    expect(schema).toContain('schema=/cache/temporal-server/schema/postgresql/v12');
    expect(schema).toMatch(/temporal-sql-tool --db "\$db" setup-schema -v 0\.0/);
    expect(schema).toMatch(/update-schema -d "\$schema\/\$dir\/versioned"/);
    for (const job of [spec.namespaceJob, spec.searchAttributesJob]) {
      expect(job.script).toContain('temporal:7233');
      const local = localScript(job, place);
      expect(local).not.toContain('temporal:7233');
      expect(local).toContain('--address 127.0.0.1:7300');
    }
    expect(spec.schemaJob.env).toMatchObject({ SQL_PLUGIN: 'postgres12', SQL_USER: 'temporal', SQL_PASSWORD: 'temporal' });
  });

  it('registers the search attributes of src/common/search-attributes.ts', () => {
    const created = [...spec.searchAttributesJob.script.matchAll(/--name (\S+) --type (\S+)/g)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(created)).toEqual(SEARCH_ATTRIBUTES);
  });

  it('takes the password and the codec endpoint from the environment, as Compose does', () => {
    expect(readClusterSpec(undefined, { TEMPORAL_POSTGRES_PASSWORD: 's3cret' }).serverEnv.POSTGRES_PWD).toBe('s3cret');
    expect(readClusterSpec(undefined, { BAREAGENT_CODEC_ENDPOINT: 'http://127.0.0.1:9999' }).uiEnv.TEMPORAL_CODEC_ENDPOINT).toBe('http://127.0.0.1:9999');
    expect(resolveEnvironment({ A: '${X:-d}', B: '${X}', C: 7, D: null }, { X: '' })).toEqual({ A: 'd', B: '', C: '7', D: '' });
  });

  it('names a bad image clearly', () => {
    expect(() => imageTag('temporalio/server:latest', 'temporalio/server')).toThrow(/temporalio\/server:<version>/);
    expect(imageTag('temporalio/server:1.29.2', 'temporalio/server')).toBe('1.29.2');
  });

  it("lays the services' ports out as Temporal's defaults do around 7233", () => {
    expect(Object.values(portsAround(7233)).sort()).toEqual([6933, 6934, 6935, 6939, 7233, 7234, 7235, 7239, 7243]);
  });
});
