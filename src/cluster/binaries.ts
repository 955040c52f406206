import type { Log } from '../server/temporal-cli';
import { findOrBuildGo } from './go-build';

export interface ServerBinaries {
  server: string;
  sqlTool: string;
  /** Holds postgresql/v12/{temporal,visibility}: the schema the admin-tools image has in /etc/temporal/schema. */
  schemaDir: string;
  /** The server's own template of its configuration, read from environment variables as in the server image. */
  configTemplate: string;
  /** The server image's (empty) dynamic config. */
  dynamicConfig: string;
}

/** The Temporal server and its SQL tool, built from the Go module of the server image's version. */
export async function findOrBuildServer(version: string, log: Log): Promise<ServerBinaries> {
  const dir = await findOrBuildGo(
    {
      module: 'go.temporal.io/server',
      version: `v${version}`,
      binaries: { 'cmd/server': 'temporal-server', 'cmd/tools/sql': 'temporal-sql-tool' },
      files: ['schema/postgresql', 'config/docker.yaml', 'config/dynamicconfig/docker.yaml'],
      cacheName: `temporal-server-v${version}`,
    },
    log,
  );
  return {
    server: `${dir}/temporal-server`,
    sqlTool: `${dir}/temporal-sql-tool`,
    schemaDir: `${dir}/schema`,
    configTemplate: `${dir}/config/docker.yaml`,
    dynamicConfig: `${dir}/config/dynamicconfig/docker.yaml`,
  };
}

export interface UiBinaries {
  server: string;
  /** The UI image's configuration template (environment variables such as TEMPORAL_ADDRESS). */
  configTemplate: string;
}

/** The Web UI server of the UI image's version: the same Go module, its UI assets embedded. */
export async function findOrBuildUi(version: string, log: Log): Promise<UiBinaries> {
  const dir = await findOrBuildGo(
    {
      module: 'github.com/temporalio/ui-server/v2',
      version: `v${version}`,
      binaries: { 'cmd/server': 'temporal-ui-server' },
      files: ['config/docker.yaml'],
      cacheName: `temporal-ui-v${version}`,
    },
    log,
  );
  return { server: `${dir}/temporal-ui-server`, configTemplate: `${dir}/config/docker.yaml` };
}
