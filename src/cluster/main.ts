import { findOrBuildServer } from './binaries';
import { LocalCluster } from './local-cluster';
import { defaultClusterDir } from './postgres';
import { portsAround } from './server-ports';

const USAGE = 'usage: npm run cluster [start|stop|status|build]';

/** `npm run cluster`: Temporal on PostgreSQL on this host, as docker-compose.temporal.yml runs it. */
async function main() {
  const command = process.argv[2] ?? 'start';
  const port = Number(process.env.BAREAGENT_CLUSTER_PORT ?? 7233);
  const uiPort = Number(process.env.BAREAGENT_CLUSTER_UI_PORT ?? 8233);
  const dir = defaultClusterDir();
  const cluster = new LocalCluster({ dir, ports: portsAround(port), ...(uiPort ? { uiPort } : {}), log: (line) => console.error(line) });
  if (command === 'start') {
    await cluster.start();
    console.log(`Cluster running (data in ${dir}). Workers and clients: TEMPORAL_ADDRESS=${cluster.address}`);
  } else if (command === 'stop') {
    await cluster.stop();
    console.log(`Cluster stopped; its data stays in ${dir}`);
  } else if (command === 'status') {
    const status = await cluster.status();
    console.log(`data:       ${dir}`);
    console.log(`PostgreSQL: ${status.postgres ? 'running' : 'stopped'}`);
    console.log(`Temporal:   ${status.server ? `running (pid ${status.server}) on ${status.address}` : 'stopped'}`);
    console.log(`Web UI:     ${status.ui ? `running (pid ${status.ui}) on ${status.uiUrl}` : 'stopped'}`);
    process.exitCode = status.server ? 0 : 3;
  } else if (command === 'build') {
    // The server and its SQL tool only (what the tests need); the Web UI is built at the first start.
    console.log((await findOrBuildServer(cluster.spec.serverVersion, (line) => console.error(line))).server);
  } else {
    throw new Error(USAGE);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
